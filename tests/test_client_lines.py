"""protocol.client, issue 55: scores with their side (Score, PovScore,
Info.turn and Info.score) in every dialect, and searches of several lines
(`analyse(..., multipv=N)`, Analysis.lines) against tuong and
Fairy-Stockfish (skipped when absent)."""
import shutil
import sys
import threading
import time

import pytest
from conftest import need, tuong_command

from tuong.engine.board import Board
from tuong.protocol import client
from tuong.protocol.client import (Analysis, Info, Limit, PovScore, Score, UnsupportedError,
                                   open_engine)

FAIRY = shutil.which("fairy-stockfish") or shutil.which("/usr/games/fairy-stockfish")
MAXQI = shutil.which("maxqi") or shutil.which("/usr/games/maxqi")
# The side to move has a rook against a pawn, and mates: Black to move, then Red.
BLACK_WINS = ("3k5/9/9/4P4/9/2r6/9/9/9/5K3 b - - 0 1", [])
RED_WINS = ("5k3/9/9/9/2R6/9/4p4/9/9/3K5 w - - 0 1", [])
# Games by moves (for maxqi, which takes no FEN) where the side to move is well
# ahead (Fairy-Stockfish, tuong and maxqi agree): Black to move, then Red.
AHEAD = [["b2b4", "b7g7", "h2f2", "h7h4", "b4c4", "h4d4", "f2g2", "g9i7", "g2d2", "d4h4", "c4c5"],
         ["h2h6", "h7d7", "b2a2", "a6a5", "i0i2", "b9a7", "a2a5", "i9i8", "a0a1", "d7d1", "a5h5",
          "i8b8"]]


# -- Score and PovScore, without a process ---------------------------------------

def test_a_score_reads_as_python_chess_reads_one():
    assert Score(cp=35).score() == 35 and not Score(cp=35).is_mate()
    assert Score(mate=3).score() is None and Score(mate=3).is_mate()
    assert Score(mate=3).score(mate_score=10000) == 9997
    assert Score(mate=-3).score(mate_score=10000) == -9997
    assert Score(mate=0).score(mate_score=10000) == -10000      # mated on the board
    assert (-Score(mate=0)).score(mate_score=10000) == 10000    # ... seen by the winner
    assert -Score(cp=35) == Score(cp=-35) and -Score(mate=3) == Score(mate=-3)
    given = -Score(mate=0)
    assert -given == Score(mate=0) and given.mate_given and given.mate == 0
    assert [str(s) for s in (Score(cp=35), Score(cp=-5), Score(mate=2), Score(mate=-2),
                             Score(mate=0), -Score(mate=0))] == \
        ["+35", "-5", "#+2", "#-2", "#-0", "#+0"]


def test_scores_rank_from_the_worst_to_the_best():
    ranked = [Score(mate=0), Score(mate=-1), Score(mate=-5), Score(cp=-900), Score(cp=0),
              Score(cp=900), Score(mate=5), Score(mate=1), -Score(mate=0)]
    assert sorted(reversed(ranked)) == ranked
    assert max(ranked) == -Score(mate=0) and Score(cp=3) <= Score(cp=3)


@pytest.mark.parametrize("fields", [{}, {"cp": 1, "mate": 2}, {"cp": 0, "mate_given": True},
                                    {"mate": 1, "mate_given": True}])
def test_a_score_is_centipawns_or_a_mate(fields):
    with pytest.raises(ValueError):
        Score(**fields)


def test_a_pov_score_turns_to_either_side():
    score = PovScore(Score(cp=-40), "black")
    assert (score.red(), score.black()) == (Score(cp=40), Score(cp=-40))
    assert score.pov("black") is score.relative and not score.is_mate()
    mate = PovScore(Score(mate=2), "red")
    assert mate.is_mate() and mate.black() == Score(mate=-2)
    with pytest.raises(ValueError):
        PovScore(Score(cp=0), "white")          # type: ignore[arg-type]
    with pytest.raises(ValueError):
        score.pov("white")                      # type: ignore[arg-type]


def test_a_pov_score_takes_the_sides_as_the_board_names_them():
    """Board.turn and Outcome.winner say "w" and "b": pov (and the turn
    given) takes them for "red" and "black"."""
    board = Board()
    board.push("h2e2")                                  # Black to move
    score = PovScore(Score(cp=-40), board.turn)         # type: ignore[arg-type]
    assert score.turn == "black" and score == PovScore(Score(cp=-40), "black")
    assert score.pov(board.turn) == score.relative == score.pov("b")
    assert score.pov("w") == score.red() == Score(cp=40)
    mated = Board("3k5/4R4/3R5/9/9/9/9/9/9/4K4 b - - 0 1")      # Black is mated: Red won
    outcome = mated.outcome()
    assert outcome is not None and outcome.winner == "w"
    mate = PovScore(Score(mate=0), mated.turn)          # type: ignore[arg-type]
    assert mate.pov(outcome.winner) == -Score(mate=0) == mate.red()
    for wrong in ("W", "white", "", None, ["w"]):
        with pytest.raises(ValueError):
            score.pov(wrong)                            # type: ignore[arg-type]


def test_an_info_gives_its_score_with_the_side_to_move():
    assert Info(cp=-40, turn="black").score == PovScore(Score(cp=-40), "black")
    assert Info(mate=3, turn="red").score.red() == Score(mate=3)
    assert Info(cp=12).score is None                   # no side: no PovScore
    assert Info(depth=3, turn="red").score is None     # no score
    merged = Info(cp=10, turn="black").merged(Info(depth=4, mate=-2))
    assert (merged.turn, merged.cp, merged.score.red()) == ("black", None, Score(mate=2))


# -- Analysis.lines, without a process --------------------------------------------

def parser():
    engine = client.UciEngine.__new__(client.UciEngine)
    engine.notation, engine.name, engine.variant, engine._analysis = "ranks0", "test", \
        "xiangqi", None
    return engine


def feed(analysis, *lines):
    for line in lines:
        analysis._take(line, time.monotonic())


def test_the_lines_of_a_search_are_its_latest_best_first():
    analysis = Analysis(parser(), time.monotonic() + 60, "black")
    assert analysis.lines == [] and analysis.info.turn == "black"
    feed(analysis, "info depth 1 multipv 1 score cp 20 pv h9g7",
         "info depth 1 multipv 2 score cp 10 pv b9c7",
         "info depth 1 multipv 3 score cp 5 pv c6c5",
         "info string nothing of a line", "info nodes 999 nps 10",
         "info depth 2 multipv 1 score cp 15 pv b9c7 h0g2")
    # Line 2 (b9c7) is the new best's: older, left out until reported again.
    assert [(i.multipv, i.depth, i.pv[0]) for i in analysis.lines] == \
        [(1, 2, "b9c7"), (3, 1, "c6c5")]
    assert analysis.lines[0] is analysis.info and analysis.info.nodes == 999
    feed(analysis, "info depth 2 multipv 2 score mate -3 pv h9g7",
         "info depth 2 multipv 3 score cp 1 pv g6g5")
    lines = analysis.lines
    assert [(i.multipv, i.pv[0], str(i.score.red())) for i in lines] == \
        [(1, "b9c7", "-15"), (2, "h9g7", "#+3"), (3, "g6g5", "-1")]
    assert all(info.turn == "black" for info in lines)
    feed(analysis, "bestmove b9c7")
    assert analysis.result.move == "b9c7" and analysis.result.info.turn == "black"


SEARCH = ["info depth 1 multipv 1 score cp 20 pv h9g7",
          "info depth 1 multipv 2 score cp 10 pv b9c7",
          "info depth 1 multipv 3 score cp 5 pv c6c5",
          "info depth 2 multipv 1 score cp 15 pv b9c7 h0g2",      # leaves line 2 out
          "info depth 2 multipv 2 score cp 12 pv h9g7",
          "info depth 2 multipv 3 score cp 1 pv c6c5"]


def test_lines_read_from_another_thread_are_always_whole():
    """`lines` read while the search's reader adds to them: one of the sets
    the search has had, never one being made (nor a KeyError)."""
    def shape(analysis):
        return tuple((i.multipv, i.depth, i.pv[0]) for i in analysis.lines)

    analysis = Analysis(parser(), time.monotonic() + 60, "black")
    whole = {shape(analysis)}
    for line in SEARCH:
        feed(analysis, line)
        whole.add(shape(analysis))
    current, seen, done = [analysis], set(), threading.Event()

    def read():
        while not done.is_set():
            try:
                seen.add(shape(current[-1]))
            except Exception as error:          # what a torn read raises (KeyError)
                seen.add(repr(error))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)                 # threads take turns as often as can be
    reader = threading.Thread(target=read)
    reader.start()
    try:
        for _ in range(2000):
            current.append(Analysis(parser(), time.monotonic() + 60, "black"))
            feed(current[-1], *SEARCH)
            del current[:-1]
    finally:
        done.set()
        reader.join()
        sys.setswitchinterval(interval)
    assert seen and seen <= whole, seen - whole


# -- every dialect: the side of a score --------------------------------------------

@pytest.mark.parametrize("protocol", ["uci", "ucci", "xboard"])
def test_tuong_scores_from_the_side_to_move_in_every_dialect(protocol):
    with open_engine(tuong_command(), protocol) as engine:
        for position, turn in ((BLACK_WINS, "black"), (RED_WINS, "red")):
            info = engine.play(position, Limit(movetime=0.3)).info
            assert info.turn == turn, info
            assert info.score.relative > Score(cp=300), info      # the side to move wins
            assert (info.score.red() > Score(cp=0)) == (turn == "red"), info


@pytest.mark.parametrize("protocol", ["uci", "ucci", "xboard"])
def test_fairy_stockfish_scores_from_the_side_to_move_in_every_dialect(protocol):
    need(FAIRY, "fairy-stockfish not installed")
    with open_engine(FAIRY, protocol) as engine:
        for position, turn in ((BLACK_WINS, "black"), (RED_WINS, "red")):
            info = engine.play(position, Limit(depth=10)).info
            assert info.turn == turn and info.score.relative > Score(cp=300), info
            assert (info.score.black() > Score(cp=0)) == (turn == "black"), info


def test_maxqi_thinks_for_the_side_to_move():
    """xboard's thinking output scores from the engine's side: the client
    has it think on its own move, the side to move, so Red's view is the
    score turned when Black is to move."""
    need(MAXQI, "maxqi not installed")
    with open_engine(MAXQI, "xboard") as engine:
        for moves, turn in zip(AHEAD, ("black", "red")):
            info = engine.play((None, moves), Limit(movetime=1.0)).info
            assert info.turn == turn and info.score is not None, info
            assert info.score.relative > Score(cp=100), (moves, info)
            assert info.score.pov(turn) == info.score.relative, info
            assert (info.score.red() > Score(cp=0)) == (turn == "red"), (moves, info)


# -- several lines ------------------------------------------------------------------

def check_lines(analysis, count, position=(None, [])):
    """`count` lines, best first: distinct legal first moves, ranks 1..count,
    scores that do not rise."""
    analysis.wait()
    lines = analysis.lines
    assert [info.multipv for info in lines] == list(range(1, count + 1)), lines
    firsts = [info.pv[0] for info in lines]
    board = Board(position[0])
    for move in position[1]:
        board.push(move)
    assert len(set(firsts)) == count and set(firsts) <= set(board.legal_moves()), firsts
    scores = [info.score.relative for info in lines]
    assert scores == sorted(scores, reverse=True), scores
    assert lines[0] is analysis.info and analysis.result.move in firsts
    return lines


def test_tuong_searches_several_lines_and_sets_multipv_back():
    sent = []
    with open_engine(tuong_command(), "uci", log=sent.append) as engine:
        check_lines(engine.analyse((None, ["h2e2"]), Limit(depth=5), multipv=3), 3,
                    (None, ["h2e2"]))
        assert "tuong < setoption name MultiPV value 3" in sent
        del sent[:]
        result = engine.play((None, []), Limit(depth=3))        # one line again
        assert "tuong < setoption name MultiPV value 1" in sent and result.move
        del sent[:]
        engine.analyse((None, []), Limit(depth=2)).wait()
        assert not any("MultiPV" in line for line in sent)      # already the engine's own
        # The engine's own value is what configure() gave it.
        engine.configure({"MultiPV": 2})
        check_lines(engine.analyse((None, []), Limit(depth=4), multipv=4), 4)
        del sent[:]
        analysis = engine.analyse((None, []), Limit(depth=4))
        assert "tuong < setoption name MultiPV value 2" in sent
        assert len(check_lines(analysis, 2)) == 2


def test_a_refused_multipv_is_not_the_engines_own():
    """configure() refused MultiPV 99 (tuong takes 1-10): the engine kept its
    own value, which a search of several lines sets back, not 99."""
    sent = []
    with open_engine(tuong_command(), "uci", log=sent.append) as engine:
        with pytest.raises(UnsupportedError, match="MultiPV"):
            engine.configure({"MultiPV": 99})
        for own in (1, 2):                  # the declared default; then what was taken
            check_lines(engine.analyse((None, []), Limit(depth=3), multipv=3), 3)
            del sent[:]
            assert engine.play((None, []), Limit(depth=2)).move
            assert f"tuong < setoption name MultiPV value {own}" in sent, sent
            assert engine.play((None, ["h2e2"]), Limit(depth=2)).move     # and on
            # Another option's refusal is its own: MultiPV 2 is taken beside it.
            with pytest.raises(UnsupportedError, match="Hash") as refused:
                engine.configure({"Hash": 0, "MultiPV": 2})
            assert "MultiPV" not in str(refused.value)


def test_without_a_declared_default_multipv_is_set_back_to_one():
    sent = []
    with open_engine(tuong_command(), "uci", log=sent.append) as engine:
        name, words = engine.options["multipv"]               # as an engine declaring none
        at = words.index("default")
        engine.options["multipv"] = (name, words[:at] + words[at + 2:])
        check_lines(engine.analyse((None, []), Limit(depth=3), multipv=3), 3)
        del sent[:]
        analysis = engine.analyse((None, []), Limit(depth=3))
        assert len(check_lines(analysis, 1)) == 1
        assert "tuong < setoption name MultiPV value 1" in sent, sent


def test_more_lines_than_the_engine_takes_or_none_are_refused():
    with open_engine(tuong_command(), "uci") as engine:
        with pytest.raises(UnsupportedError, match="at most 10 lines"):
            engine.analyse((None, []), Limit(depth=2), multipv=11)
        for wrong in (0, -1, 2.5, True):
            with pytest.raises(ValueError, match="multipv"):
                engine.analyse((None, []), Limit(depth=2), multipv=wrong)
        assert engine.alive and engine.play((None, []), Limit(depth=1)).move


def test_a_dialect_without_multipv_refuses_several_lines_and_plays_on():
    # xboard has no MultiPV at all (tuong's UCCI declares one: below).
    with open_engine(tuong_command(), "xboard") as engine:
        with pytest.raises(UnsupportedError, match="MultiPV"):
            engine.analyse((None, []), Limit(depth=2), multipv=2)
        analysis = engine.analyse((None, []), Limit(depth=3), multipv=1)    # one: fine
        analysis.wait()
        assert len(analysis.lines) == 1 and analysis.lines[0].turn == "red"
        assert engine.alive and engine.play((None, ["h2e2"]), Limit(depth=1)).move


def test_tuong_searches_several_lines_over_ucci():
    """tuong's UCCI declares `multipv` (as Fairy-Stockfish's does) and says
    which line each info line is: analyse(multipv=3) gives 3 lines there too,
    and the option is set back for a search of one."""
    sent = []
    with open_engine(tuong_command(), "ucci", log=sent.append) as engine:
        assert "multipv" in engine.options
        lines = check_lines(engine.analyse((None, ["h2e2"]), Limit(depth=5), multipv=3), 3,
                            (None, ["h2e2"]))
        assert all(info.depth == 5 and info.turn == "black" for info in lines), lines
        assert "tuong < setoption multipv 3" in sent
        with pytest.raises(UnsupportedError, match="at most 10 lines"):
            engine.analyse((None, []), Limit(depth=2), multipv=11)
        analysis = engine.analyse((None, []), Limit(depth=3))
        analysis.wait()
        assert "tuong < setoption multipv 1" in sent and len(analysis.lines) == 1


@pytest.mark.parametrize("protocol", ["uci", "ucci"])
def test_fairy_stockfish_searches_several_lines(protocol):
    need(FAIRY, "fairy-stockfish not installed")
    with open_engine(FAIRY, protocol) as engine:
        lines = check_lines(engine.analyse((None, ["h2e2"]), Limit(depth=8), multipv=4), 4,
                            (None, ["h2e2"]))
        assert all(info.depth == 8 and info.turn == "black" for info in lines), lines
        assert engine.play((None, []), Limit(depth=4)).move
        analysis = engine.analyse((None, []), Limit(depth=4))
        analysis.wait()
        assert len(analysis.lines) == 1

"""Playing levels (engine/levels.py, the options UCI_LimitStrength, UCI_Elo
and Skill Level in every dialect, tools/levels.py): the options parse and
refuse what they should, full strength is untouched when the limit is off,
every level plays legal moves quickly, and a lower level errs more, by a
deep search's judgement, on fixed positions and seeds."""
import random
import re

import pytest

from tuong.engine import levels
from tuong.engine.board import Board
from tuong.engine.report import SearchInfo
from tuong.engine.search import Searcher
from tuong.tools import levels as tool


def info(multipv, score, move, mate=None):
    return SearchInfo(depth=4, seldepth=4, multipv=multipv, score=None if mate else score,
                      mate=mate, bound=None, nodes=100, nps=1000, hashfull=0, time_ms=1,
                      pv=(move,))


# -- the scale -------------------------------------------------------------------

def test_the_scale_rises_with_the_elo():
    previous = None
    for elo in range(levels.MIN_ELO, levels.MAX_ELO + 1, 50):
        level = levels.level_for_elo(elo)
        if previous:
            assert level.nodes >= previous.nodes
            assert level.candidates <= previous.candidates
            assert level.temperature <= previous.temperature
            assert level.max_loss <= previous.max_loss
        previous = level
    assert levels.level_for_elo(100).elo == levels.MIN_ELO
    assert levels.level_for_elo(9999).elo == levels.MAX_ELO


def test_skill_level_maps_onto_the_scale():
    assert levels.elo_for_skill(20) is None
    assert levels.elo_for_skill(0) == levels.MIN_ELO
    assert levels.elo_for_skill(19) == levels.MAX_ELO
    elos = [levels.elo_for_skill(s) for s in range(20)]
    assert elos == sorted(elos) and len(set(elos)) == 20


def test_the_choice_never_takes_a_move_past_the_largest_loss():
    level = levels.level_for_elo(2000)
    lines = [info(1, 50, "h2e2"), info(2, 50 - level.max_loss - 1, "a0a1"),
             info(3, 0, "b0c2", mate=-3)]
    rng = random.Random(1)
    assert {levels.choose(lines, level, rng).pv[0] for _ in range(200)} == {"h2e2"}


def test_a_lower_level_spreads_its_choices_wider():
    lines = [info(1, 40, "h2e2"), info(2, 20, "b2e2"), info(3, 0, "h0g2"), info(4, -60, "c3c4")]
    counts = {}
    for elo in (800, 2400):
        rng = random.Random(5)
        picks = [levels.choose(lines, levels.level_for_elo(elo), rng).pv[0] for _ in range(2000)]
        counts[elo] = picks.count("h2e2") / len(picks)
    assert counts[800] < counts[2400]


def test_greed_makes_a_capture_look_better_at_a_low_level():
    fen = "4k4/9/9/9/4r4/9/9/4R4/9/3K5 w"            # the rook on e2 can take e5's
    lines = [info(1, 30, "d0d1"), info(2, 0, "e2e5")]
    rng = random.Random(3)
    low = levels.level_for_elo(800)
    takes = sum(levels.choose(lines, low, rng, fen).pv[0] == "e2e5" for _ in range(1000))
    rng = random.Random(3)
    plain = sum(levels.choose(lines, low, rng).pv[0] == "e2e5" for _ in range(1000))
    assert takes > plain


def test_a_search_too_small_for_its_first_iteration_still_gives_lines():
    level = levels.level_for_elo(levels.MIN_ELO)
    lines = levels.Lines()
    searcher = Searcher(8, threads=1)
    board = Board()
    result = searcher.search(board, nodes=10, multipv=level.candidates, on_info=lines)
    assert result.depth == 0
    heard = []
    found = levels.complete(lines, result.depth, searcher, board, level,
                            lambda info: heard.append(info.multipv))
    assert len(found) == level.candidates and {line.depth for line in found} == {1}
    # The one-ply search's lines reach the GUI too, not only the chooser.
    assert set(range(1, level.candidates + 1)) <= set(heard)


def test_a_level_never_plays_a_move_left_out(engine):
    """searchmoves (UCI) and banmoves (UCCI) hold at the weakest level too,
    where the node budget runs out before the first iteration and the lines
    come from a one-ply search of their own."""
    left_out = ["b2e2", "g3g4", "h0g2", "c3c4", "b0c2", "h2e2", "b0a2", "b2d2"]
    allowed = [m for m in Board().legal_moves() if m not in left_out]
    process = engine()
    process.send("setoption name UCI_LimitStrength value true")
    process.send(f"setoption name UCI_Elo value {levels.MIN_ELO}")
    for _ in range(6):
        process.send("position startpos")
        process.send("go depth 5 searchmoves " + " ".join(allowed))
        process.expect(r"bestmove (\S+)", timeout=20)
        assert process.child.match.group(1) in allowed


def test_a_raised_multipv_does_not_change_the_level(engine):
    """A GUI's MultiPV left at 10 would spread the level's node budget over
    more lines: the level searches its own number of lines."""
    level = levels.level_for_elo(levels.MAX_ELO)
    process = engine()
    process.send("setoption name MultiPV value 10")
    process.send("setoption name UCI_LimitStrength value true")
    process.send(f"setoption name UCI_Elo value {levels.MAX_ELO}")
    process.send("position startpos")
    process.send("go depth 4")
    process.expect(r"bestmove \S+", timeout=20)
    shown = {int(n) for n in re.findall(r"multipv (\d+)", process.before)}
    assert shown and max(shown) == level.candidates < 10


# -- moves and errors ------------------------------------------------------------------

def test_every_level_plays_legal_moves():
    fens = tool.sample_positions(6)
    for elo in range(levels.MIN_ELO, levels.MAX_ELO + 1, 200):
        level = levels.level_for_elo(elo)
        rng = random.Random(elo)
        for fen in fens:
            move = tool.choose_move(fen, level, rng, Searcher(8, threads=1))
            assert move in Board(fen).legal_moves(), (elo, fen, move)


def test_a_lower_level_errs_more_by_a_deep_searchs_judgement():
    """On fixed positions and seeds: the beginner loses more per move than
    the middle level, which loses more than the master (losses capped as
    tuong-levels caps them)."""
    fens = tool.sample_positions(16)
    table = tool.errors([800, 1600, 2400], fens, tool.Judge(7), tries=2, seed=1)
    mean = {elo: sum(min(loss, tool.LOSS_CAP) for loss in losses) / len(losses)
            for elo, losses in table.items()}
    assert mean[800] > mean[1600] > mean[2400], mean


def test_tuong_levels_prints_its_table(capsys):
    assert tool.main(["errors", "--positions", "3", "--judge-depth", "4",
                      "--elos", "800,2400", "--tries", "1"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^\s+800\s+[\d,]+\s+\d+\s+3\s+[\d.]+%\s+[\d.]+$", out, re.M), out
    with pytest.raises(SystemExit) as exit_:
        tool.main(["errors", "--elos", "700"])
    assert exit_.value.code == 2


# -- the options in the three dialects ---------------------------------------------------

def test_uci_offers_the_options_and_refuses_bad_values(engine):
    process = engine(None)
    process.send("uci")
    process.expect("uciok")
    before = process.before
    assert "option name UCI_LimitStrength type check default false" in before
    assert f"option name UCI_Elo type spin default {levels.DEFAULT_ELO} " \
           f"min {levels.MIN_ELO} max {levels.MAX_ELO}" in before
    assert "option name Skill Level type spin default 20 min 0 max 20" in before
    process.error_for("setoption name UCI_Elo value 5000", "UCI_Elo",
                      f"{levels.MIN_ELO}..{levels.MAX_ELO}")
    process.error_for("setoption name Skill Level value -1", "Skill Level")
    process.error_for("setoption name UCI_LimitStrength value maybe", "true or false")


def test_ucci_and_xboard_offer_them_too(engine):
    process = engine("ucci")
    assert "option limitstrength type check default false" in process.before
    assert f"option elo type spin min 800 max {levels.MAX_ELO}" in process.before
    process.send("setoption limitstrength true")
    process.send("setoption elo 1000")
    process.send("position startpos")
    process.send("go depth 3")
    process.expect(r"bestmove \S+")
    xboard = engine(None)
    xboard.send("xboard")
    xboard.send("protover 2")
    xboard.expect("done=1")
    assert f'option="UCI_Elo -spin 1500 800 {levels.MAX_ELO}"' in xboard.before
    xboard.send("option UCI_LimitStrength=1")
    xboard.send("option UCI_Elo=1200")
    xboard.send("new")
    xboard.send("variant xiangqi")
    xboard.send("st 1")
    xboard.send("go")
    xboard.expect(r"move \S+")


def nodes_of(process, commands):
    for command in commands:
        process.send(command)
    process.send("position startpos moves h2e2 h9g7")
    process.send("go depth 7")
    process.expect(r"bestmove (\S+)")
    return re.findall(r"nodes (\d+)", process.before), process.child.match.group(1)


def test_full_strength_is_untouched_when_the_limit_is_off(engine):
    plain = nodes_of(engine(), ["ucinewgame"])
    off = nodes_of(engine(), ["setoption name UCI_Elo value 800",
                              "setoption name UCI_LimitStrength value false",
                              "setoption name Skill Level value 20", "ucinewgame"])
    assert plain == off


def test_a_limited_engine_moves_quickly_under_a_clock_and_hears_stop(engine):
    process = engine()
    process.send("setoption name UCI_LimitStrength value true")
    process.send("setoption name UCI_Elo value 1200")
    process.send("position startpos")
    process.send("go wtime 60000 btime 60000")
    # A player's pause: a share of the move's budget, never the whole clock.
    process.expect(r"bestmove (\S+)", timeout=20)
    assert process.child.match.group(1) in Board().legal_moves()
    process.send("position startpos moves h2e2")
    process.send("go wtime 600000 btime 600000")
    process.expect("multipv 2 ", timeout=20)
    process.send("stop")
    process.expect(r"bestmove \S+", timeout=5)

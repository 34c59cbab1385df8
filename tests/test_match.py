"""tuong-match: the referee's rules (in-process scripted players), the
command line, statistics, and whole matches with fake and real engines,
replayed with an independent rules implementation (pyffish)."""
import importlib.util
import io
import json
import os
import pathlib
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

import pytest
from conftest import ROOT, need, need_module, to_ranks1, tuong_command

from tuong.engine.board import Board
from tuong.protocol.client import (EngineProtocolError, EngineTerminated, EngineTimeout, Info,
                             PlayResult)
from tuong.tools.match import cli as match
from tuong.tools.records import pgn
from tuong.tools.match import sprt
from tuong.tools.match.referee import Player, Rules, TimeControl, play_game
from tuong.tools.match.runtime import schedule
from tuong.tools.match.stats import Progress, Stats, final_report

FAKE = str(pathlib.Path(__file__).resolve().parent / "fake_engine.py")
FAIRY = shutil.which("fairy-stockfish") or shutil.which("/usr/games/fairy-stockfish")
MAXQI = shutil.which("maxqi") or shutil.which("/usr/games/maxqi")

PERPETUAL = "9/6R2/3k5/9/2P4r1/9/9/9/4K4/9 w - - 0 1"   # Rg8-g7+ Kd7-d8 Rg7-g8+ Kd8-d7
SHUFFLE = "9/4ak3/9/9/9/9/9/9/9/R3K4 w - - 0 1"         # Ra0-a1 Kf8-f7 Ra1-a0 Kf7-f8
MATE_IN_1 = "9/3k5/9/9/2R6/9/9/4K4/9/9 w - - 0 1"      # c5d5#
STALEMATE_IN_1 = "9/9/3k5/9/9/9/9/9/9/4K3R w - - 0 1"   # i0i8: Black has no move


@pytest.fixture(autouse=True)
def engine_path(monkeypatch):
    """Fake engines are started as `python tests/fake_engine.py`: they need
    the repository on their path."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


# -- the referee, with scripted in-process players ----------------------------

class Scripted:
    """Plays the given moves in turn (cycling); each item may be a move, a
    PlayResult, or an exception to raise."""

    def __init__(self, *items, elapsed=0.01, cp=None):
        self.items, self.n, self.elapsed, self.cp = list(items), 0, elapsed, cp
        self.limits = []

    def play(self, position, limit, timeout=None):
        self.limits.append((limit, timeout))
        item = self.items[self.n % len(self.items)]
        self.n += 1
        if isinstance(item, Exception):
            raise item
        if isinstance(item, PlayResult):
            return item
        return PlayResult(item, info=Info(depth=5, cp=self.cp), elapsed=self.elapsed)


def game(red, black, fen=None, book=(), rules=None, tc=None):
    tc = tc or TimeControl(depth=5)
    return play_game(Player("R", red, tc), Player("B", black, tc), (fen, list(book)), rules)


def test_perpetual_check_loses():
    g = game(Scripted("g8g7", "g7g8"), Scripted("d7d8", "d8d7"), PERPETUAL)
    assert (g.result, g.termination, len(g.moves)) == ("0-1", "perpetual check", 8)
    assert g.reason == "Red loses by perpetual check"


def test_repetition_without_checks_is_a_draw():
    g = game(Scripted("a0a1", "a1a0"), Scripted("f8f7", "f7f8"), SHUFFLE)
    assert (g.result, g.termination, len(g.moves)) == ("1/2-1/2", "repetition", 8)


CHASE = "5k3/9/9/9/2n6/9/9/1R7/9/3K5 w - - 0 1"     # Rb2-c2 Nc5-b7 Rc2-b2 Nb7-c5


def test_perpetual_chase_loses_under_the_asian_rules():
    # Red's rook chases the lone horse back and forth: at the third
    # occurrence Red loses, and the PGN says which piece chased which.
    g = game(Scripted("b2c2", "c2b2"), Scripted("c5b7", "b7c5"), CHASE)
    assert (g.result, g.termination, len(g.moves)) == ("0-1", "perpetual chase", 8)
    assert g.reason == "Red loses by perpetual chase: the rook on b2 chased the horse on c5"
    text = pgn.format_game(g, 1, "test")
    assert '[Termination "perpetual chase"]' in text and "{Red loses by perpetual chase" in text
    # Under check-only rules (Fairy-Stockfish's) the same game is a draw.
    g = game(Scripted("b2c2", "c2b2"), Scripted("c5b7", "b7c5"), CHASE,
             rules=Rules(repetition="check-only"))
    assert (g.result, g.termination) == ("1/2-1/2", "repetition")


def test_a_chase_of_a_protected_piece_is_a_draw():
    # The horse is guarded by the rook on c9 wherever it stands on c5.
    g = game(Scripted("b2c2", "c2b2"), Scripted("c5b7", "b7c5"),
             "2r2k3/9/9/9/2n6/9/9/1R7/9/3K5 w - - 0 1")
    assert (g.result, g.termination) == ("1/2-1/2", "repetition")


def replay(tags, moves, rules):
    """A recorded game played again through the referee."""
    fen = tags.get("FEN")
    red_first = fen is None or fen.split()[1] in ("w", "r")
    red, black = (moves[0::2], moves[1::2]) if red_first else (moves[1::2], moves[0::2])
    return game(Scripted(*red), Scripted(*black), fen, rules=rules)


def test_recorded_games_end_as_before_under_check_only_rules():
    # 58 self-play games recorded by the build before the chase rules: under
    # check-only rules the referee ends each exactly as it did then; under
    # the Asian rules only repetitions may change their verdict.
    text = (pathlib.Path(__file__).parent / "data" / "replay.pgn").read_text()
    games = pgn.read_games(text)
    assert len(games) == 58
    for tags, moves, result in games:
        g = replay(tags, moves, Rules(repetition="check-only"))
        assert (g.result, g.termination, len(g.moves)) == \
            (result, tags["Termination"], int(tags["PlyCount"]))
        if tags["Termination"] != "repetition":
            g = replay(tags, moves, Rules())
            assert (g.result, g.termination) == (result, tags["Termination"])


def test_repetition_counts_book_moves_and_black_to_move_starts():
    # PERPETUAL after Rg8-g7+: Black to move; the book plays the first half-cycle.
    fen = "9/9/3k2R2/9/2P4r1/9/9/9/4K4/9 b - - 0 1"
    g = game(Scripted("g8g7", "g7g8"), Scripted("d8d7", "d7d8"), fen, book=["d7d8", "g7g8"])
    assert (g.result, g.termination, len(g.moves)) == ("0-1", "perpetual check", 8)


def test_no_legal_move_loses():
    g = game(Scripted("c5d5"), Scripted("d8d9"), MATE_IN_1)
    assert (g.result, g.termination, g.reason) == ("1-0", "checkmate", "Red mates")
    g = game(Scripted("i0i8"), Scripted("d7d8"), STALEMATE_IN_1)
    assert (g.result, g.termination) == ("1-0", "stalemate")


def test_move_limits():
    g = game(Scripted("a0a1", "a1a2", "a2a3", "a3a4"), Scripted("f8f7", "f7f8"), SHUFFLE,
             rules=Rules(max_plies=5))
    assert (g.result, g.termination, len(g.moves)) == ("1/2-1/2", "move limit", 5)
    g = game(Scripted("a0a1", "a1a2", "a2a3", "a3a4"), Scripted("f8f7", "f7f8"), SHUFFLE,
             rules=Rules(no_capture_plies=3))
    assert (g.termination, len(g.moves)) == ("move limit", 3)
    assert "without a capture" in g.reason


def test_a_capture_resets_the_no_capture_count():
    # Red's rook takes the black rook on h5 at ply 1, then both shuffle.
    fen = "9/9/3k5/9/2P4r1/9/9/9/4K4/7R1 w - - 0 1"
    g = game(Scripted("h0h5", "h5h6", "h6h5"), Scripted("d7d8", "d8d7"), fen,
             rules=Rules(no_capture_plies=4, max_plies=100))
    assert g.termination == "move limit" and len(g.moves) == 5


def test_adjudication_needs_both_engines_to_agree():
    rules = Rules(resign_movecount=3, resign_score=400)
    g = game(Scripted("a0a1", "a1a2", "a2a3", "a3a4", cp=500),
             Scripted("f8f7", "f7f8", cp=-500), SHUFFLE, rules=rules)
    assert (g.result, g.termination, len(g.moves)) == ("1-0", "adjudication", 6)
    g = game(Scripted("a0a1", "a1a2", "a2a3", "a3a4", cp=500),
             Scripted("f8f7", "f7f8", cp=0), SHUFFLE, rules=Rules(
                 resign_movecount=3, resign_score=400, max_plies=8))
    assert g.termination == "move limit"                 # Black does not agree
    g = game(Scripted("a0a1", "a1a2", "a2a3", "a3a4", cp=5), Scripted("f8f7", "f7f8", cp=-5),
             SHUFFLE, rules=Rules(draw_movenumber=2, draw_movecount=2, draw_score=10))
    assert (g.result, g.termination, len(g.moves)) == ("1/2-1/2", "adjudication", 4)


@pytest.mark.parametrize("answer, termination", [
    ("e0e5", "illegal move"),
    (PlayResult(None), "illegal move"),
    (PlayResult(None, resigned=True), "resignation"),
    (PlayResult(None, claim="1-0 {Red mates}"), "false claim"),
    (PlayResult(None, claim="0-1 {Red gives up}"), "resignation"),
    (EngineTerminated("gone"), "crash"),
    (EngineProtocolError("bestmove zz"), "protocol error"),
    (EngineTimeout("late"), "stalled"),
])
def test_forfeits(answer, termination):
    g = game(Scripted(answer), Scripted("d7d8"), MATE_IN_1)
    assert (g.result, g.termination, g.forfeit) == ("0-1", termination, "w")
    assert g.reason.startswith("R") and len(g.reason) > 2, g.reason      # names who forfeits


def test_clock_and_time_forfeit():
    tc = TimeControl(base=1.0, inc=0.1, margin=0.1)
    red = Scripted("a0a1", "a1a2", "a2a3", "a3a4", elapsed=0.45)
    black = Scripted("f8f7", "f7f8", elapsed=0.05)
    g = game(red, black, SHUFFLE, tc=tc, rules=Rules(max_plies=100))
    # Red's clock: 1.0, then -0.45 +0.1 per move: 0.65, 0.30; the 3rd move
    # (0.45 s) overruns 0.30 s by more than the 0.1 s margin.
    assert (g.result, g.termination, g.forfeit) == ("0-1", "time forfeit", "w")
    assert [limit.red_clock for limit, _ in red.limits] == pytest.approx([1.0, 0.65, 0.3])
    assert [timeout for _, timeout in red.limits] == pytest.approx([1.1, 0.75, 0.4])
    assert [limit.black_clock for limit, _ in black.limits] == pytest.approx([1.0, 1.05])
    assert len(g.moves) == 4


def test_only_clocked_engines_get_clocks():
    red = Scripted("a0a1", "a1a2", elapsed=0.2)
    black = Scripted("f8f7", "f7f8")
    play_game(Player("R", red, TimeControl(base=5, inc=1)),
              Player("B", black, TimeControl(depth=3)), (SHUFFLE, []), Rules(max_plies=3))
    assert (red.limits[1][0].red_clock, red.limits[1][0].black_clock) == (pytest.approx(5.8), None)
    assert black.limits[0][0].red_clock is None and black.limits[0][0].depth == 3
    assert black.limits[0][1] == 60.0                     # no clock: the stall timeout


def test_pgn_names_each_sides_clock_in_an_odds_game():
    """cutechess's tags: one TimeControl when both sides share it, White- and
    BlackTimeControl (Red's and Black's) when they do not, so the PGN of a
    time-odds match says who had the short clock."""
    def tags_of(red_tc, black_tc):
        g = play_game(Player("R", Scripted("a0a1", "a1a2"), red_tc),
                      Player("B", Scripted("f8f7", "f7f8"), black_tc), (SHUFFLE, []),
                      Rules(max_plies=2))
        [(tags, _, _)] = pgn.read_games(pgn.format_game(g))
        return {k: v for k, v in tags.items() if "TimeControl" in k}
    short, long = TimeControl(base=2.5, inc=0.025), TimeControl(base=10, inc=0.1)
    assert tags_of(short, long) == {"WhiteTimeControl": "2.5+0.025",
                                    "BlackTimeControl": "10+0.1"}
    assert tags_of(long, short) == {"WhiteTimeControl": "10+0.1",
                                    "BlackTimeControl": "2.5+0.025"}
    assert tags_of(long, TimeControl(base=10, inc=0.1)) == {"TimeControl": "10+0.1"}


def test_movetime_overrun_and_engine_timeout_are_time_forfeits():
    tc = TimeControl(movetime=0.2, margin=0.1)
    g = game(Scripted("c5d5", elapsed=0.35), Scripted("d7d8"), MATE_IN_1, tc=tc)
    assert g.termination == "time forfeit"
    g = game(Scripted(EngineTimeout("x")), Scripted("d7d8"), MATE_IN_1, tc=tc)
    assert g.termination == "time forfeit"
    g = game(Scripted("c5d5", elapsed=0.25), Scripted("d7d8"), MATE_IN_1, tc=tc)
    assert g.termination == "checkmate"                 # within the margin


def test_book_moves_are_checked_and_recorded():
    g = game(Scripted("h0g2"), Scripted("h9g7"), book=["h2e2"], rules=Rules(max_plies=3))
    assert [(m.move, m.book) for m in g.moves] == [("h2e2", True), ("h9g7", False),
                                                    ("h0g2", False)]
    with pytest.raises(ValueError):
        game(Scripted("h9g7"), Scripted("b9c7"), book=["h2e9"])


def test_time_control_parsing():
    tc = TimeControl.parse({"tc": "1:30+0.5", "timemargin": "50"})
    assert (tc.base, tc.inc, tc.margin) == (90, 0.5, 0.05)
    assert TimeControl.parse({"st": "0.5"}).movetime == 0.5
    assert TimeControl.parse({"depth": "7", "nodes": "1000"}).describe() == "depth 7, nodes 1000"
    assert TimeControl.parse({"tc": "10+0.1"}).describe() == "10+0.1"
    with pytest.raises(ValueError):
        TimeControl.parse({})
    with pytest.raises(ValueError):
        TimeControl.parse({"tc": "40/60"})


# -- statistics ---------------------------------------------------------------

def test_elo_and_error_bar():
    # 50 wins and 50 losses: s = 0.5, sd of the mean 0.05, 95% -> 0.5 +- 0.098
    elo, error = sprt.elo_estimate(50, 0, 50)
    assert elo == pytest.approx(0) and error == pytest.approx(68.99, abs=0.01)
    elo, error = sprt.elo_estimate(60, 20, 20)           # s = 0.7
    assert elo == pytest.approx(147.19, abs=0.01) and error == pytest.approx(66.01, abs=0.01)
    assert sprt.score_to_elo(0.75) == pytest.approx(190.85, abs=0.01)
    assert sprt.elo_estimate(10, 0, 0)[0] == float("inf")


def test_elo_bounds_stay_finite_on_the_decided_side():
    low, high = sprt.elo_bounds(100, 0, 0)               # Wilson: s >= 100 / 103.84
    assert low == pytest.approx(sprt.score_to_elo(100 / (100 + sprt.Z95 ** 2)))
    assert round(low) == 566 and high == float("inf")
    low, high = sprt.elo_bounds(0, 0, 100)
    assert low == float("-inf") and round(high) == -566
    low, high = sprt.elo_bounds(0, 3, 97)                # normal bar infinite, these not
    assert sprt.elo_estimate(0, 3, 97)[1] == float("inf")
    assert -1100 < low < high < -400
    low, high = sprt.elo_bounds(60, 20, 20)              # wider than the normal interval
    elo, error = sprt.elo_estimate(60, 20, 20)
    assert low < elo - error and high > elo + error


def test_sprt_matches_fastchess_reference_values():
    # fastchess's own test values (logistic Elo, GSPRT), 1% tolerance there.
    assert sprt.llr([21184, 40708, 21404], sprt.TRINOMIAL_SCORES, 0.5, 2.5) == \
        pytest.approx(-1.57, abs=0.01)
    assert sprt.llr([57030, 106593, 57433], sprt.TRINOMIAL_SCORES, 0, 2) == \
        pytest.approx(-2.59, abs=0.01)
    # pentanomial [LL, LD, WL+DD, WD, WW]
    assert sprt.llr([223, 9863, 20279 + 1000, 10037, 246], sprt.PENTANOMIAL_SCORES, 0.5, 2.5) == \
        pytest.approx(-3.07, abs=0.01)
    assert sprt.llr([871, 26175, 55003 + 980, 26678, 821], sprt.PENTANOMIAL_SCORES, 0, 2) == \
        pytest.approx(-4.98, abs=0.01)


def test_sprt_bounds_and_decisions():
    s = sprt.Sprt(0, 5, 0.05, 0.05)
    assert (s.lower, s.upper) == pytest.approx((-2.944, 2.944), abs=0.001)
    assert s.decision(3.0) == "H1" and s.decision(-3.0) == "H0" and s.decision(0) is None
    with pytest.raises(ValueError):
        sprt.Sprt(5, 0)
    with pytest.raises(ValueError):
        sprt.Sprt(0, 5, 0.6, 0.6)


# -- command line -------------------------------------------------------------

def test_cutechess_style_command_line(tmp_path):
    config = match.parse_args(
        "-engine name=A cmd=tuong proto=uci -engine name=B cmd=/usr/games/maxqi proto=xboard "
        "-each tc=10+0.1 option.Hash=64 -games 100 -concurrency 2 -pgnout out.pgn "
        "-sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 -resign movecount=3 score=600 "
        "-draw movenumber=40 movecount=8 score=10 -maxplies 200".split())
    a, b = config.engines
    assert (a.name, a.cmd, a.proto, a.options, a.tc.base, a.tc.inc) == \
        ("A", "tuong", "uci", {"Hash": "64"}, 10, 0.1)
    assert (b.proto, b.options) == ("xboard", {"Hash": "64"})
    assert (config.games, config.concurrency, config.pgnout) == (100, 2, "out.pgn")
    assert (config.sprt.elo1, config.rules.resign_score, config.rules.draw_movenumber,
            config.rules.max_plies) == (5, 600, 40, 200)
    assert len(config.openings) >= 50                   # the default book


def test_command_line_details(tmp_path):
    book = tmp_path / "book.epd"
    book.write_text("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - ;c0 x\n")
    config = match.parse_args([
        "-engine", "name=A", "cmd=fs -x 1", "st=0.5", "notation=ranks1",
        "-engine", "cmd=/usr/bin/B", "depth=3", "-each", "tc=1+0", "-j", "3",
        "-openings", f"file={book}", "format=epd", "-pgnout", "file=x.pgn"])
    a, b = config.engines
    assert (a.cmd, a.tc.movetime, a.tc.base, a.notation) == ("fs -x 1", 0.5, 1, "ranks1")
    assert (b.name, b.tc.depth) == ("B", 3)
    assert config.concurrency == 3 and config.pgnout == "x.pgn"
    assert config.openings == [(
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 0 1", [])]
    for bad in ("-engine cmd=a -games 2", "-engine cmd=a -engine cmd=b",
                "-engine cmd=a tc=1 -engine cmd=b tc=1 -bogus",
                "-engine cmd=a tc=1 -engine cmd=b tc=1 proto=winboard",
                "-engine cmd=a tc=1 -engine cmd=a tc=1"):
        with pytest.raises(match.UsageError):
            match.parse_args(bad.split())


def test_double_dash_options_positional_sprt_and_fen_book(tmp_path):
    book = tmp_path / "book.fen"
    book.write_text("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 0 1\n")
    config = match.parse_args(
        f"--engine cmd=a depth=1 --engine cmd=b depth=1 --games 2 --sprt 0 10 0.1 "
        f"-openings file={book}".split())
    assert (config.games, config.sprt.elo0, config.sprt.elo1) == (2, 0, 10)
    assert config.openings[0][0].endswith(" b - - 0 1")
    with pytest.raises(match.UsageError):
        match.parse_args("--engine cmd=a depth=1 --engine cmd=b depth=1 --sprt 0 x".split())


def test_config_file(tmp_path):
    path = tmp_path / "match.json"
    path.write_text(json.dumps({
        "engine": [{"name": "A", "cmd": "a"}, {"name": "B", "cmd": "b", "proto": "ucci"}],
        "each": {"tc": "5+0.05", "option": {"Hash": 32}}, "games": 10, "repeat": True}))
    config = match.parse_args(["-config", str(path), "-games", "4"])
    assert [e.name for e in config.engines] == ["A", "B"]
    assert config.engines[1].proto == "ucci" and config.engines[0].options == {"Hash": "32"}
    assert config.games == 4                                  # the command line wins


def test_schedule_pairs_openings_and_colours():
    config = match.parse_args("-engine cmd=a depth=1 -engine cmd=b depth=1 -engine cmd=c "
                              "depth=1 -games 4 -rounds 2 -tournament gauntlet".split())
    specs = schedule(config)
    assert len(specs) == 2 * 2 * 4                           # rounds x encounters x games
    first = [s for s in specs if s.second == 1]
    assert [(s.red, s.black) for s in first[:2]] == [(0, 1), (1, 0)]
    assert first[0].opening == first[1].opening != first[2].opening
    assert {s.first for s in specs} == {0}


@pytest.mark.parametrize("games, rounds", [(1, 4), (3, 2), (5, 3), (2, 3)])
def test_odd_games_per_round_still_alternate_colours_in_pairs(games, rounds):
    """Whatever -games and -rounds are, each engine is Red in half the games
    (one more at most), and the two games of a pentanomial pair share their
    opening with colours reversed."""
    config = match.parse_args(f"-engine cmd=a depth=1 -engine cmd=b depth=1 "
                              f"-games {games} -rounds {rounds}".split())
    specs = schedule(config)
    assert len(specs) == games * rounds
    reds = sum(s.red == 0 for s in specs)
    assert abs(reds - (len(specs) - reds)) <= 1
    pairs = {}
    for s in specs:
        pairs.setdefault(s.pair, []).append(s)
    for pair in pairs.values():
        assert len(pair) <= 2
        if len(pair) == 2:
            a, b = pair
            assert a.opening == b.opening
            assert (a.red, a.black) == (b.black, b.red)
    assert len({s.pair for s in specs}) == (len(specs) + 1) // 2


def test_progress_rewrites_in_place_on_a_terminal():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    config = match.parse_args("-engine name=A cmd=a depth=1 -engine name=B cmd=b depth=1 "
                              "-games 4".split())
    stats, stream = Stats(config), Tty()
    progress = Progress(config, stats, 4, stream)
    for job in schedule(config)[:2]:
        g = game(Scripted("c5d5"), Scripted("d8d9"), MATE_IN_1)
        stats.add(job, g)
        progress.update(job.number, job, g)
    progress.finish()
    text = stream.getvalue()
    assert text.count("\r") == 2 and text.endswith("\n") and text.count("\n") == 1
    assert "2/4" in text and "W 1 D 0 L 1" in text and "Elo" in text and "[##" in text


# -- PGN ----------------------------------------------------------------------

def test_pgn_round_trip():
    g = game(Scripted("c5d5", cp=12), Scripted("d8d9"), MATE_IN_1)
    text = pgn.format_game(g, 7)
    assert '[Variant "xiangqi"]' in text and '[SetUp "1"]' in text and '[Round "7"]' in text
    assert f'[FEN "{MATE_IN_1}"]' in text and '[Termination "checkmate"]' in text
    assert "1. c5d5 {+0.12/5 0.010s} {Red mates} 1-0" in text
    [(tags, moves, result)] = pgn.read_games(text)
    assert (tags["FEN"], moves, result) == (MATE_IN_1, ["c5d5"], "1-0")
    black_first = game(Scripted("a0a1"), Scripted("f8f7"), SHUFFLE.replace(" w ", " b "),
                       rules=Rules(max_plies=2))
    text = pgn.format_game(black_first)
    assert "1... f8f7 {0.010s} 2. a0a1 {0.010s} {Draw by the 2-ply limit} 1/2-1/2" in text
    start = game(Scripted("h0g2"), Scripted("h9g7"), book=["h2e2"], rules=Rules(max_plies=3))
    text = pgn.format_game(start)
    assert "[FEN" not in text and "[SetUp" not in text and "1. h2e2 {book} h9g7" in text


def test_shipped_books_agree_and_are_legal():
    data = ROOT / "tools" / "data"
    by_moves = pgn.read_openings(data / "openings.pgn")
    by_fen = pgn.read_openings(data / "openings.epd")
    assert len(by_moves) == len(by_fen) >= 50
    lengths = set()
    for (fen, moves), (position, _) in zip(by_moves, by_fen):
        board = Board(fen)
        for move in moves:
            board.push(move)
        assert board.fen().split()[:2] == position.split()[:2]
        lengths.add(len(moves))
    assert min(lengths) >= 4 and max(lengths) <= 8
    assert len({moves[0] for _, moves in by_moves}) >= 8      # varied first moves


# -- whole matches ------------------------------------------------------------

def fake_cmd(*args):
    return " ".join([sys.executable, FAKE, *args])


def run_match(argv):
    out = io.StringIO()
    stats, decision, interrupted = match.run(match.parse_args(argv), stream=out)
    return stats, decision, out.getvalue()


def test_forfeits_are_recorded_and_engines_restarted(tmp_path):
    out = tmp_path / "f.pgn"
    argv = ["-engine", "name=crash", f"cmd={fake_cmd('--mode crash --at 2')}",
            "-engine", "name=ill", f"cmd={fake_cmd('--mode illegal --at 2')}",
            "-engine", "name=slow", f"cmd={fake_cmd('--mode slow --at 2 --delay 0.4')}",
            "-engine", "name=garbage", f"cmd={fake_cmd('--mode garbage --at 2')}",
            "-each", "tc=0.3+0.01", "-games", "2", "-j", "2", "-pgnout", str(out)]
    stats, _, text = run_match(argv)
    games = pgn.read_games(out.read_text())
    assert len(games) == 12 and text.count("\n") == 12       # one progress line per game
    terminations = {tags["Termination"] for tags, _, _ in games}
    assert terminations <= {"crash", "illegal move", "time forfeit", "protocol error"}
    assert len(terminations) == 4
    assert all(result in ("1-0", "0-1") for _, _, result in games)
    # the crashing engine crashed again and again: it was restarted each time
    assert sum(tags["Termination"] == "crash" for tags, _, _ in games) >= 3
    report = final_report(match.parse_args(argv), stats, None)
    assert "Rank" in report and "garbage" in report and "Terminations" in report


def test_sprt_stops_early(tmp_path):
    argv = ["-engine", "name=good", f"cmd={fake_cmd('--seed 3')}",
            "-engine", "name=bad", f"cmd={fake_cmd('--mode illegal')}",
            "-each", "depth=1", "-games", "200", "-j", "2",
            "-sprt", "elo0=0", "elo1=50", "alpha=0.1", "beta=0.1"]
    stats, decision, _ = run_match(argv)
    w, d, l = stats.head_to_head()
    assert decision == "H1" and w + d + l < 200 and l == 0


def test_concurrent_games_all_land_in_the_pgn(tmp_path):
    out = tmp_path / "c.pgn"
    argv = ["-engine", "name=A", f"cmd={fake_cmd('--seed 1')}",
            "-engine", "name=B", f"cmd={fake_cmd('--seed 2 --proto xboard')}", "proto=xboard",
            "-engine", "name=C", f"cmd={fake_cmd('--seed 4 --proto ucci')}", "proto=ucci",
            "-each", "depth=1", "-games", "2", "-rounds", "2", "-j", "3",
            "-maxplies", "60", "-pgnout", str(out)]
    stats, _, _ = run_match(argv)
    games = pgn.read_games(out.read_text())
    assert len(games) == 12
    assert sum(sum(wdl) for wdl in stats.wdl.values()) == 12
    assert sorted(int(tags["Round"]) for tags, _, _ in games) == list(range(1, 13))


def test_resume_counts_the_pgn_games_and_plays_the_rest(tmp_path):
    """A match stopped after some games goes on from its PGN: the games in
    it count (the SPRT's pairs too), only the others are played, and a
    file of another match is refused."""
    out = tmp_path / "r.pgn"
    argv = ["-engine", "name=A", f"cmd={fake_cmd('--seed 1')}",
            "-engine", "name=B", f"cmd={fake_cmd('--seed 2')}",
            "-each", "depth=1", "-games", "6", "-maxplies", "40", "-pgnout", str(out),
            "-sprt", "elo0=-5", "elo1=5"]
    run_match(argv[:argv.index("-games") + 1] + ["3"] + argv[argv.index("-games") + 2:])
    first = pgn.read_games(out.read_text())
    assert len(first) == 3
    whole_text = out.read_text()
    last_game = whole_text[whole_text.rindex("[Event "):]
    out.write_text(whole_text + last_game[:len(last_game) * 2 // 3])  # killed while writing
    stats, _, text = run_match(argv + ["-resume"])
    games = pgn.read_games(out.read_text())
    assert text.startswith("Resumed: 3 games") and text.count("game ") == 3
    assert sorted(int(tags["Round"]) for tags, _, _ in games) == list(range(1, 7))
    assert sum(stats.head_to_head()) == 6 and sum(stats.penta[(0, 1)]) == 3
    whole = Stats(match.parse_args(argv))
    for spec, (tags, _, result) in zip(schedule(match.parse_args(argv)),
                                       sorted(games, key=lambda g: int(g[0]["Round"]))):
        whole.add(spec, match.Finished(result, tags["Termination"]))
    assert whole.penta == stats.penta and whole.wdl == stats.wdl
    broken = out.read_text()
    moves = broken.index("\n\n1. ") + 2
    out.write_text(broken[:moves] + "1. x9q " + broken[moves:])            # a game damaged
    with pytest.raises(match.UsageError, match="game 1 of the file is broken"):
        run_match(argv + ["-resume"])
    out.write_text(broken)
    swapped = [w.replace("name=A", "name=X") for w in argv]
    with pytest.raises(match.UsageError, match="not one of this match's games"):
        run_match(swapped + ["-resume"])
    with pytest.raises(match.UsageError, match="needs -pgnout"):
        match.parse_args(argv[:argv.index("-pgnout")] + ["-resume"])
    with pytest.raises(match.UsageError, match="needs the first run's -seed"):
        match.parse_args(argv + ["-resume", "-openings", "order=random"])
    match.parse_args(argv + ["-resume", "-openings", "order=random", "-seed", "7"])


def test_a_book_that_names_the_start_position_resumes(tmp_path):
    """An opening book may give the start position as a FEN tag; the PGN
    written leaves it out, and the resume still knows its games."""
    book = tmp_path / "book.pgn"
    book.write_text(f'[FEN "{Board().fen()}"]\n1. h2e2 h9g7 *\n\n1. b2e2 b9c7 *\n')
    assert pgn.read_openings(book) == [(None, ["h2e2", "h9g7"]), (None, ["b2e2", "b9c7"])]
    out = tmp_path / "r.pgn"
    argv = ["-engine", "name=A", f"cmd={fake_cmd('--seed 1')}",
            "-engine", "name=B", f"cmd={fake_cmd('--seed 2')}",
            "-each", "depth=1", "-maxplies", "30", "-pgnout", str(out),
            "-openings", f"file={book}"]
    run_match(argv + ["-games", "1"])
    _, _, text = run_match(argv + ["-games", "2", "-resume"])
    assert text.startswith("Resumed: 1 game")


def test_random_openings_without_a_seed_draw_one_and_say_it(monkeypatch, capsys):
    """-openings order=random with no -seed: a seed is drawn and printed, so
    the run can be resumed in the same order."""
    argv = ["-engine", "cmd=a", "-engine", "cmd=b", "-each", "depth=1",
            "-openings", "order=random"]
    config = match.parse_args(argv)
    assert config.drawn_seed is not None
    again = match.parse_args(argv + ["-seed", str(config.drawn_seed)])
    assert again.drawn_seed is None and again.openings == config.openings
    monkeypatch.setattr(match, "run", lambda config: (_ for _ in ()).throw(match.Fatal("stop")))
    assert match.main(argv) == 1
    assert re.search(r"-seed \d+ \(give it again with -resume\)", capsys.readouterr().out)


def replay_with_pyffish(path):
    """Replay every game with Fairy-Stockfish's rules (ranks 1-10) and check
    that each move is legal and that the result agrees with our referee."""
    sf = need_module("pyffish")

    checked = {}
    for tags, moves, result in pgn.read_games(pathlib.Path(path).read_text()):
        fen = tags.get("FEN", sf.start_fen("xiangqi"))
        played = []
        for move in moves:          # (legal here also means the game was not over yet)
            assert to_ranks1(move) in sf.legal_moves("xiangqi", fen, played), (tags, played, move)
            played.append(to_ranks1(move))
        termination = tags["Termination"]
        white_to_move = sf.get_fen("xiangqi", fen, played).split()[1] == "w"
        if termination in ("checkmate", "stalemate"):
            assert sf.legal_moves("xiangqi", fen, played) == []
            value = sf.game_result("xiangqi", fen, played)       # side to move's view
            assert value < 0
            assert result == ("0-1" if white_to_move else "1-0")
        elif termination in ("repetition", "perpetual check"):
            ended, value = sf.is_optional_game_end("xiangqi", fen, played)
            assert ended
            expected = "1/2-1/2" if value == 0 else \
                ("1-0" if (value > 0) == white_to_move else "0-1")
            assert result == expected, (tags, value)
        elif termination == "move limit":
            assert result == "1/2-1/2"
        checked[termination] = checked.get(termination, 0) + 1
    return checked


def test_random_games_replayed_with_pyffish(tmp_path):
    out = tmp_path / "random.pgn"
    argv = ["-engine", "name=A", f"cmd={fake_cmd('--seed 11')}",
            "-engine", "name=B", f"cmd={fake_cmd('--seed 12')}",
            "-each", "depth=1", "-games", "16", "-j", "2", "-maxplies", "160",
            "-pgnout", str(out)]
    run_match(argv)
    checked = replay_with_pyffish(out)
    assert sum(checked.values()) == 16
    assert checked.get("checkmate", 0) + checked.get("stalemate", 0) > 0, checked


def test_perpetual_check_game_replayed_with_pyffish(tmp_path):
    book = tmp_path / "perpetual.epd"
    book.write_text(PERPETUAL + "\n" + SHUFFLE + "\n")
    out = tmp_path / "p.pgn"
    # both engines play their side's script; colours swap on the second game,
    # so each script holds both sides' moves (the illegal ones are never asked)
    red = fake_cmd("--moves", "g8g7,g7g8")
    black = fake_cmd("--moves", "d7d8,d8d7")
    argv = ["-engine", "name=checker", f"cmd={red}", "-engine", "name=runner", f"cmd={black}",
            "-each", "depth=1", "-games", "1", "-openings", f"file={book}",
            "-pgnout", str(out)]
    run_match(argv)
    checked = replay_with_pyffish(out)
    assert checked == {"perpetual check": 1}
    [(tags, _, result)] = pgn.read_games(out.read_text())
    assert result == "0-1" and tags["White"] == "checker"


def test_fairy_stockfish_against_maxqi(tmp_path):
    need(FAIRY and MAXQI, "fairy-stockfish or maxqi not installed")
    out = tmp_path / "real.pgn"
    argv = ["-engine", "name=fs", f"cmd={FAIRY}", "proto=uci", "option.Hash=16",
            "-engine", "name=maxqi", f"cmd={MAXQI}", "proto=xboard",
            "-each", "tc=1+0.05", "-games", "2", "-j", "2", "-pgnout", str(out)]
    stats, _, _ = run_match(argv)
    checked = replay_with_pyffish(out)
    assert sum(checked.values()) == 2
    assert "time forfeit" not in checked and "illegal move" not in checked


def interruptible():
    """Give the child the default SIGINT: a shell starts background jobs
    (pytest under `cmd &`, nohup, some CI runners) with SIGINT ignored, and
    the child would inherit that and rightly ignore a Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def fake_processes(marker):
    found = []
    for proc in pathlib.Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if marker in cmdline and "fake_engine.py" in cmdline and state != "Z":
                found.append(int(proc.name))
    return found


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_leaves_no_engines_and_a_clean_pgn(tmp_path, sig):
    out = tmp_path / "i.pgn"
    marker = f"--score {7000 + sig}"                     # to find our fake engines
    slow = fake_cmd("--mode slow --delay 0.02", marker)
    proc = subprocess.Popen(
        [sys.executable, "-m", "tuong.tools.match.cli", "-engine", "name=A", f"cmd={slow} --seed 1",
         "-engine", "name=B", f"cmd={slow} --seed 2", "-each", "depth=1", "-maxplies", "40",
         "-games", "40", "-j", "2", "-pgnout", str(out)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=interruptible)
    # Interrupt after a finished game, while engines are running (not in the
    # moment between two games).
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (
            "[Result" in (out.read_text() if out.exists() else "") and fake_processes(marker)):
        time.sleep(0.05)
    assert fake_processes(marker)
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "Interrupted" in stdout and "Score of A vs B" in stdout
    assert fake_processes(marker) == []
    games = pgn.read_games(out.read_text())
    assert 1 <= len(games) < 40
    assert all(result in ("1-0", "0-1", "1/2-1/2") for _, _, result in games)


@pytest.fixture(scope="module")
def tuong():
    """How to start our engine. A build that does not start or answer `uci`
    fails these tests (it is never a reason to skip them)."""
    command = tuong_command()
    proc = subprocess.run(shlex.split(command), input="uci\nquit\n", capture_output=True,
                          text=True, timeout=60, cwd=ROOT)
    assert "uciok" in proc.stdout, f"tuong does not answer uci: {proc.stderr[-2000:]}"
    return command


@pytest.mark.parametrize("proto", ["uci", "xboard"])
def test_tuong_plays_a_match(tmp_path, tuong, proto):
    out = tmp_path / "tuong.pgn"
    argv = ["-engine", "name=tuong", f"cmd={tuong}", f"proto={proto}", f"dir={ROOT}",
            "-engine", "name=random", f"cmd={fake_cmd('--seed 5')}",
            "-each", "tc=2+0.05", "-games", "2", "-j", "2", "-pgnout", str(out)]
    stats, _, _ = run_match(argv)
    checked = replay_with_pyffish(out)
    assert sum(checked.values()) == 2
    assert stats.head_to_head()[2] == 0                  # tuong never loses to random moves


def test_cluster_option_needs_dask_only_when_given(monkeypatch, capsys):
    plain = subprocess.run([sys.executable, "-c",
                            "import sys, tools.match; print('distributed' in sys.modules)"],
                           cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert plain.stdout.strip() == "False", plain.stderr
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec",
        lambda name, *rest: None if name == "distributed" else find_spec(name, *rest))
    argv = "-engine cmd=a depth=1 -engine cmd=b depth=1 -cluster local:2".split()
    assert match.main(argv) == 2
    assert "pip install 'tuong[cluster]'" in capsys.readouterr().err
    with pytest.raises(match.UsageError, match="number of workers"):
        match.parse_args(argv[:-1] + ["local:two"])

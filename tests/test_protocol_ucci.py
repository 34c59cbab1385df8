"""The real engine process over UCCI (xqbase.com spec): handshake, times in
seconds or milliseconds, banmoves, nobestmove, bye."""
import re

import pytest

from tuong.engine.board import Board
from conftest import HANG, EngineProcess
from test_protocol_uci import MATED, MATES, flip


@pytest.fixture
def ucci(engine_env):
    process = EngineProcess(engine_env)
    process.send("ucci")
    process.expect("ucciok")
    yield process
    if process.child.proc.poll() is None:
        process.child.proc.kill()
        process.child.proc.wait(timeout=5)


def test_handshake_lists_ucci_style_options(ucci):
    for line in ("id name tuong", "option usemillisec type check default false",
                 "option hashsize type spin min 1 max 4096 default 16",
                 "option newgame type button"):
        assert line in ucci.before
    assert "option name" not in ucci.before
    ucci.send("isready")
    ucci.expect("readyok")


def test_quit_and_bye_answer_bye(ucci):
    ucci.send("bye")
    ucci.expect("bye")
    assert ucci.child.proc.wait(timeout=HANG) == 0


# Read in the wrong unit, 1000 ms would be 1000 s and 2 s would be 2 ms:
# the answers must come before the clock they were given falls (1 s; 2 s),
# and the clock read in seconds must be used, not taken as a few ms.

def test_times_in_milliseconds_after_usemillisec(ucci):
    ucci.send("setoption usemillisec true")
    ucci.send("position startpos")
    ucci.send("go time 1000 increment 10 opptime 1000 oppincrement 10")
    ucci.expect(r"bestmove \S+", 1)


def test_times_in_seconds_by_default(ucci):
    ucci.send("position startpos")
    ucci.send("go time 2 movestogo 10")          # 2 s for 10 moves: ~0.16 s this move
    ucci.expect(r"bestmove \S+", 2)
    depths = [int(d) for d in re.findall(r"info depth (\d+)", ucci.before)]
    # Taken as 2 ms it would stop at once; 160 ms reach well past depth 3.
    assert depths and max(depths) > 3, depths


def test_banmoves_exclude_root_moves_until_the_next_position(ucci):
    # A mate in one with exactly one mating move: found whatever the thread
    # count (a startpos search is not deterministic with Lazy SMP helpers).
    fen, _, mate = MATES[0]
    position = f"position fen {fen}"

    def best(*commands):
        for command in commands:
            ucci.send(command)
        return ucci.expect(r"bestmove (\S+)").group(1)

    assert best(position, "go depth 4") == mate
    second = best(f"banmoves {mate}", "go depth 4")
    assert second != mate and second in Board(fen).legal_moves()
    assert best("go depth 4") != mate                         # the ban lasts ...
    assert best(position, "go depth 4") == mate                # ... until the next position


def test_mate_scores_and_nobestmove(ucci):
    fen, n, move = MATES[2]
    ucci.send(f"position fen {flip(fen)}")
    ucci.send("go depth 10")
    ucci.expect(r"bestmove (\S+)")
    scores = re.findall(r"info depth \d+ score (-?\d+)", ucci.before)
    assert int(scores[-1]) == 10000 - (2 * n - 1)     # ElephantEye's mate convention
    ucci.send(f"position fen {MATED}")
    ucci.send("go depth 5")
    ucci.expect("nobestmove")


def test_a_mate_longer_than_ucci_can_show_stays_a_mate():
    """An endgame table's mate may lie beyond 200 plies, where a UCCI reader
    (ElephantEye's WIN_VALUE, our client) would take the score for
    centipawns: it is written as the longest mate that reads as one."""
    from tuong.protocol.client.ucci import UcciEngine
    from tuong.protocol.client.common import Info
    from tuong.protocol.ucci import ucci_score
    assert ucci_score(None, 3) == 9995 and ucci_score(None, -3) == -9994
    assert ucci_score(150, None) == 150
    for mate, shown in ((150, 100), (-150, -99), (100, 100), (-99, -99), (-100, -99)):
        info = Info()
        UcciEngine._bare_score(None, info, ucci_score(None, mate))
        assert (info.mate, info.cp) == (shown, None), mate


def test_ponder_and_ponderhit(ucci):
    ucci.send("setoption usemillisec true")
    ucci.send("position startpos moves h2e2")
    ucci.send("go ponder time 3000 increment 0")
    assert ucci.silent("bestmove", 1.0)
    ucci.send("ponderhit")
    ucci.expect(r"bestmove \S+", 3)                # by itself, before the 3 s clock falls


def test_bad_input(ucci):
    for command, text in [("go time", "time"), ("go time soon", "time"), ("go depth -1", "depth"),
                          ("banmoves z0z0", "not legal"), ("setoption hashsize 0", "hashsize"),
                          ("setoption nothing 3", "no such option"),
                          ("position fen 9/9 w", "bad FEN"), ("uci2", "unknown command")]:
        ucci.send(command)
        assert text in ucci.line("info string error: "), command
    ucci.send("stop")
    ucci.expect("nobestmove")                     # nothing was searching
    ucci.send("isready")
    ucci.expect("readyok")
    assert "bestmove" not in ucci.before


def test_probe_says_what_the_hash_table_holds(ucci):
    """UCCI's `probe`: a bare `pophash` for a position the table does not
    hold; after a search, its best move and its score as bounds at their
    depth; the position on the board stays; a bad position is an error."""
    ucci.send("probe startpos")
    ucci.expect(r"pophash\r?\n")
    ucci.send("position startpos moves h2e2")
    ucci.send("go depth 6")
    best = ucci.expect(r"bestmove (\S+)").group(1)
    ucci.send("probe startpos moves h2e2")
    move, low, low_depth, high, high_depth = ucci.expect(
        r"pophash bestmove (\S+)(?: lowerbound (-?\d+) depth (\d+))?"
        r"(?: upperbound (-?\d+) depth (\d+))?\r?\n").groups()
    assert move == best and (low or high)
    assert int(low_depth or high_depth) >= 5
    ucci.send("probe fen 9/9/9 w")
    ucci.expect("info string error: probe: bad FEN")
    ucci.send("probe startpos moves a0a9")
    ucci.expect("info string error: probe: illegal move")
    ucci.send("go depth 1")                      # still the position set: h2e2 played
    board = Board()
    board.push("h2e2")
    assert ucci.expect(r"bestmove (\S+)").group(1) in board.legal_moves()


def test_multipv_as_fairy_stockfish_offers_it(ucci):
    """Not in the spec: `multipv`, declared as Fairy-Stockfish's UCCI declares
    its MultiPV, and `multipv N` in each info line of a search of several
    lines (issue 55); one line keeps the spec's fields."""
    assert "option multipv type spin min 1 max 10 default 1" in ucci.before
    ucci.send("setoption multipv 3")
    ucci.send("position startpos moves h2e2")
    ucci.send("go depth 4")
    ucci.expect(r"bestmove (\S+)")
    found = re.findall(r"info depth (\d+) multipv (\d+) score (-?\d+) .*? pv (\S+)", ucci.before)
    last = [line for line in found if line[0] == "4"]
    assert [int(line[1]) for line in last] == [1, 2, 3], found
    assert len({line[3] for line in last}) == 3                 # three first moves
    scores = [int(line[2]) for line in last]
    assert scores == sorted(scores, reverse=True), last
    assert ucci.child.match.group(1) == last[0][3]               # the best line's move
    ucci.send("setoption multipv 1")
    ucci.send("go depth 3")
    ucci.expect(r"bestmove \S+")
    assert re.search(r"info depth 3 score -?\d+ ", ucci.before) and "multipv" not in ucci.before

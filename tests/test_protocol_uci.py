"""The real engine process over UCI: whole conversations through pipes
(pexpect, conftest.EngineProcess), each with hard timeouts.

The mate positions here are shared with test_protocol_ucci.py and
test_protocol_xboard.py."""
import random
import re
import time

import pytest
from conftest import HANG

from tuong.engine.board import Board
from tuong.protocol.options import default_threads

# Mates in N, Red to move, each with exactly one mating first move (checked
# below with the Board API); `flip` gives the same for Black to move.
MATES = [
    ("9/4a4/3k5/9/9/9/9/5C3/4K4/1R7 w", 1, "b0d0"),
    ("5kb2/9/9/6p2/1N7/2R6/9/9/8C/4K4 w", 1, "c4f4"),
    ("3k2P2/5P3/4bR2b/9/9/9/8p/9/9/5K3 w", 2, "f8e8"),
    ("2R6/4a4/5k3/9/9/9/9/9/3R5/3K1C3 w", 2, "d1f1"),
    ("5R3/9/3k1a3/9/9/9/9/5K3/2C6/9 w", 3, "f9f7"),
    ("9/4k4/8b/9/5R3/9/9/7C1/9/5K3 w", 3, "f5e5"),
]
MATED = "9/4a4/3k5/9/9/9/9/5C3/4K4/3R5 b"      # Black to move, no legal move


def flip(fen):
    """The colour-reversed position: ranks mirrored, cases swapped."""
    ranks, side = fen.split()[0].split("/"), fen.split()[1]
    return "/".join(r.swapcase() for r in reversed(ranks)) + (" b" if side == "w" else " w")


def flip_move(move):
    return f"{move[0]}{9 - int(move[1])}{move[2]}{9 - int(move[3])}"


def mates_within(board, n):
    """The side to move forces mate in at most n moves (brute force)."""
    for move in board.legal_moves():
        board.push(move)
        won = board.is_game_over() or (n > 1 and all(
            _after(board, reply, lambda: mates_within(board, n - 1))
            for reply in board.legal_moves()))
        board.pop()
        if won:
            return True
    return False


def _after(board, move, test):
    board.push(move)
    try:
        return test()
    finally:
        board.pop()


def mating_first_moves(board, n):
    return [m for m in board.legal_moves()
            if _after(board, m, lambda: board.is_game_over() or (n > 1 and all(
                _after(board, r, lambda: mates_within(board, n - 1))
                for r in board.legal_moves())))]


def mate_cases():
    for fen, n, move in MATES:
        yield pytest.param(fen, n, move, id=f"red-mate{n}-{move}")
        yield pytest.param(flip(fen), n, flip_move(move), id=f"black-mate{n}-{flip_move(move)}")


def best_after(engine, *commands, timeout=20):
    for command in commands:
        engine.send(command)
    return engine.expect(r"bestmove (\S+)(?: ponder (\S+))?", timeout)


# -- conversations ------------------------------------------------------------------
def test_handshake_options_and_isready(engine):
    e = engine(first=None)
    e.send("uci")
    e.expect("uciok")
    assert "id name tuong" in e.before
    for name in ("Hash", "Clear Hash", "MultiPV", "Move Overhead", "Ponder", "UCI_Variant",
                 "Threads"):
        assert f"option name {name} type" in e.before
    e.send("isready")
    e.expect("readyok")
    assert e.close() == 0


@pytest.mark.parametrize("fen,n,move", list(mate_cases()))
def test_mates_are_found_with_the_right_score(engine, fen, n, move):
    board = Board(fen)
    if n > 1:
        assert not mates_within(board, n - 1)
    assert mating_first_moves(board, n) == [move]
    e = engine()
    # One thread searches deterministically: one try. With Lazy SMP helpers
    # (TUONG_THREADS=2) the search is not, and a depth-10 search missed the
    # mate in 3 from 9/4k4/8b/9/5R3/9/9/7C1/9/5K3 w about once in a hundred
    # (an engine matter, reported): there a second try from an empty table.
    # Depth 12, not 10: with the w4 weights that mate comes out at depth 11.
    misses = []
    for _attempt in range(1 if default_threads() == 1 else 2):
        e.send("ucinewgame")
        best = best_after(e, f"position fen {fen}", "go depth 12").group(1)
        last = [line for line in e.before.splitlines() if line.startswith("info depth")][-1]
        if f"score mate {n} " in last and best == move:
            break
        misses.append((best, last))
    else:
        pytest.fail(f"mate in {n} ({move}) not found: {misses}")


def test_bestmove_none_when_there_is_no_legal_move(engine):
    e = engine()
    assert best_after(e, f"position fen {MATED}", "go depth 5").group(1) == "(none)"
    assert "info depth 0 score mate 0" in e.before


def test_stop_and_isready_answer_at_once_during_go_infinite(engine):
    """isready is answered while the search runs (no bestmove before
    readyok), and stop gets exactly one bestmove. The times are printed,
    not asserted: load would make any bound flaky (tuong-bench latency
    measures them)."""
    e = engine()
    e.send("position startpos")
    e.send("go infinite")
    e.expect("info depth 5")
    time.sleep(0.3)                           # well inside a deep iteration
    ready = e.roundtrip("isready", "readyok")
    assert "bestmove" not in e.before
    stop = e.roundtrip("stop", r"bestmove \S+")
    e.send("isready")
    e.expect("readyok")
    assert "bestmove" not in e.before         # exactly one
    print(f"\nlatency during go infinite: isready {ready * 1000:.1f} ms, stop {stop * 1000:.1f} ms")


def test_go_infinite_never_ends_by_itself(engine):
    e = engine()
    # A mate in 1: the search has nothing left to do after a few ms.
    e.send(f"position fen {MATES[0][0]}")
    e.send("go infinite")
    assert e.silent("bestmove", 2.0)
    e.send("stop")
    assert e.expect(r"bestmove (\S+)", 2).group(1) == MATES[0][2]


def test_ponder_waits_for_ponderhit_then_plays_on_the_clock(engine):
    e = engine()
    e.send("setoption name Ponder value true")
    e.send("position startpos moves h2e2")
    e.send("go ponder wtime 3000 btime 3000")
    assert e.silent("bestmove", 1.0)
    # After the ponderhit the search ends by itself (no stop is sent) on its
    # budget, a fraction of the 3 s: it must answer before that clock falls.
    e.send("ponderhit")
    e.expect(r"bestmove \S+", 3)


def test_clocked_go_respects_the_clock(engine):
    # 1 s left: the budget is a few ms, and the answer must come before
    # the clock falls (the only bound a GUI applies).
    e = engine()
    best_after(e, "position startpos", "go wtime 1000 btime 1000 winc 10 binc 10", timeout=1)


def test_movetime_depth_and_nodes_limits(engine):
    e = engine()
    start = time.perf_counter()
    best_after(e, "position startpos", "go movetime 300")
    # It uses its time (a lower bound: load only makes it later); the upper
    # bound is the hang guard.
    assert time.perf_counter() - start >= 0.3
    best_after(e, "go depth 3")
    assert re.findall(r"info depth (\d+)", e.before)[-1] == "3"
    best = best_after(e, "go nodes 5000").group(1)
    nodes = [int(n) for n in re.findall(r" nodes (\d+)", e.before)]
    # Iterations finished under the limit; a worker notices it within 1024 nodes.
    assert nodes and max(nodes) < 5000 + 1024 * 4, nodes
    assert best in Board().legal_moves()


def test_multipv_and_searchmoves(engine):
    e = engine()
    best_after(e, "setoption name MultiPV value 3", "position startpos", "go depth 4")
    assert {"multipv 1", "multipv 2", "multipv 3"} <= set(re.findall(r"multipv \d", e.before))
    best = best_after(e, "setoption name MultiPV value 1", "go depth 3 searchmoves a3a4 i3i4")
    assert best.group(1) in ("a3a4", "i3i4")


def test_go_perft_and_d(engine):
    e = engine()
    e.send("position startpos")
    e.send("go perft 3")
    total = e.expect(r"Nodes searched: (\d+)").group(1)
    assert total == "79666"
    assert len(re.findall(r"(?m)^[a-i]\d[a-i]\d: \d+", e.before)) == 44
    e.send("position startpos moves h2e2")
    e.send("d")
    fen = e.line("Fen: ")
    board = Board()
    board.push("h2e2")
    assert fen == f"Fen: {board.fen()}"
    assert re.match(r"Key: [0-9A-F]{16}", e.line("Key: "))


def test_a_game_to_the_end(engine):
    """Red searches depth 4 against Black's seeded random moves, through
    `position ... moves` each turn, until one side is mated. The engine is
    asked for Black's move too (depth 1): `bestmove (none)` exactly when the
    Board says the side to move has no move. (Black once searched depth 1
    itself; in a level position that let it hold a draw by repetition.)"""
    e = engine()
    e.send("ucinewgame")
    rng = random.Random(7)
    board, moves = Board(), []
    while True:
        e.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        best = best_after(e, f"go depth {4 if board.turn == 'w' else 1}").group(1)
        if best == "(none)":
            break
        board.push(best)                        # raises if the engine played an illegal move
        if board.turn == "w":                   # Black's answer replaced by a random one
            board.pop()
            best = rng.choice(sorted(board.legal_moves()))
            board.push(best)
        moves.append(best)
        assert len(moves) < 300, "no end in 300 plies"
    assert board.is_game_over()
    assert board.turn == "b"                    # the searcher won


def test_a_fast_clock_game_never_oversteps(engine):
    """Both sides on 1 s + 10 ms per move, the clock kept here from the
    measured round trips: no flag falls in 80 plies."""
    e = engine()
    clock = {"w": 1000.0, "b": 1000.0}
    board, moves = Board(), []
    while len(moves) < 80 and not board.is_game_over():
        e.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        start = time.perf_counter()
        best = best_after(e, f"go wtime {int(clock['w'])} btime {int(clock['b'])} "
                             f"winc 10 binc 10", timeout=5).group(1)
        side = board.turn
        clock[side] -= (time.perf_counter() - start) * 1000
        assert clock[side] > 0, f"{side} lost on time at ply {len(moves) + 1}"
        clock[side] += 10
        board.push(best)
        moves.append(best)
    print(f"\nclocks after {len(moves)} plies: {clock['w']:.0f} / {clock['b']:.0f} ms")


def test_bad_input_is_reported_and_the_last_good_state_kept(engine):
    e = engine()
    error_for = e.error_for
    e.send("position startpos moves h2e2")
    error_for("flurb", "unknown command")
    error_for("position fen rnbakabnr/9/1c5c1/p1p1p1p1p w - - 0 1", "bad FEN", "ranks")
    error_for("position fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKXBNR w",
              "bad FEN", "'X'")
    error_for("setoption name Hash value 99999", "Hash", "1..4096")
    error_for("setoption name MultiPV value many", "MultiPV")
    error_for("setoption name Nonexistent Option value 3", "no such option")
    error_for("go depth banana", "depth")
    error_for("go wtime", "wtime")
    error_for("go sideways 3", "sideways")
    e.send_bytes(b"\xff\xfe\x80garbage\x00bytes\n")
    assert "unknown command" in e.line("info string error: ")
    error_for("x" * 10_000, "unknown command")
    error_for("position fen " + "p" * 10_000, "bad FEN")
    e.send_bytes(b"isready\r\n\r\n\n   \n")
    e.expect("readyok")
    assert "info string" not in e.before       # blank lines and CRLF are not errors
    e.send("d")
    assert e.line("Fen: ").split()[1].startswith("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4")
    # An illegal move inside `position`: named, and the position stops before it.
    message = error_for("position startpos moves h2e2 h9g7 e2e9 b0c2", "'e2e9'", "move 3")
    assert "1c4nc1" in message             # the FEN after h2e2 h9g7
    e.send("d")
    assert e.line("Fen: ").startswith("Fen: rnbakab1r/9/1c4nc1/")
    e.send("isready")
    e.expect("readyok")
    best = best_after(e, "go depth 2").group(1)            # still searches, from there
    board = Board("rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w")
    assert best in board.legal_moves()
    assert e.close() == 0


def test_end_of_input_during_a_search_exits_cleanly(engine):
    # go infinite never ends by itself: end of input stops it, and it answers.
    e = engine()
    e.send("go infinite")
    e.expect("info depth 3")
    assert e.close(timeout=HANG) == 0
    e.expect(r"bestmove \S+")


def test_quit_during_a_search(engine):
    e = engine()
    e.send("go infinite")
    e.expect("info depth 3")
    e.send("quit")
    assert e.child.proc.wait(timeout=HANG) == 0

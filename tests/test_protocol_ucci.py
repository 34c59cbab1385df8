"""The real engine process over UCCI (xqbase.com spec): handshake, times in
seconds or milliseconds, banmoves, nobestmove, bye."""
import re
import time

import pytest

from test_protocol_uci import MATED, MATES, EngineProcess, flip

pytest.importorskip("engine.search")


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
    assert ucci.roundtrip("isready", "readyok") < 2


def test_quit_and_bye_answer_bye(ucci):
    ucci.send("bye")
    ucci.expect("bye")
    assert ucci.child.proc.wait(timeout=5) == 0


def test_times_in_milliseconds_after_usemillisec(ucci):
    ucci.send("setoption usemillisec true")
    ucci.send("position startpos")
    start = time.perf_counter()
    ucci.send("go time 1000 increment 10 opptime 1000 oppincrement 10")
    ucci.expect(r"bestmove \S+", 2)
    assert time.perf_counter() - start < 0.5


def test_times_in_seconds_by_default(ucci):
    ucci.send("position startpos")
    start = time.perf_counter()
    ucci.send("go time 2 movestogo 10")          # 2 s for 10 moves
    ucci.expect(r"bestmove \S+", 3)
    assert time.perf_counter() - start < 1.0


def test_banmoves_exclude_root_moves_until_the_next_position(ucci):
    def best(*commands):
        ucci.send("setoption clearhash")         # the same search each time
        for command in commands:
            ucci.send(command)
        return ucci.expect(r"bestmove (\S+)").group(1)

    first = best("position startpos", "go depth 4")
    second = best(f"banmoves {first}", "go depth 4")
    assert second != first
    assert best("position startpos", "go depth 4") == first     # position clears the ban


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


def test_ponder_and_ponderhit(ucci):
    ucci.send("setoption usemillisec true")
    ucci.send("position startpos moves h2e2")
    ucci.send("go ponder time 3000 increment 0")
    assert ucci.silent("bestmove", 1.0)
    ucci.send("ponderhit")
    ucci.expect(r"bestmove \S+", 3)


def test_bad_input(ucci):
    for command, text in [("go time", "time"), ("go time soon", "time"), ("go depth -1", "depth"),
                          ("banmoves z0z0", "not legal"), ("setoption hashsize 0", "hashsize"),
                          ("setoption nothing 3", "no such option"),
                          ("position fen 9/9 w", "bad FEN"), ("uci2", "unknown command")]:
        ucci.send(command)
        assert text in ucci.line("info string error: ", 5), command
    ucci.send("stop")
    ucci.expect("nobestmove")                     # nothing was searching
    assert ucci.roundtrip("isready", "readyok") < 2

"""protocol.client: parsing without a process, failure handling against the
fake engine, and real games against fairy-stockfish, maxqi and tuong
(skipped when absent)."""
import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from conftest import ROOT, need, tuong_command

from tuong.engine.board import Board
from tuong.protocol import client
from tuong.protocol.client import xboard
from tuong.protocol.client import (EngineProtocolError, EngineTerminated, EngineTimeout, Info,
                                   Limit, UnsupportedError, engine_fen, from_engine_move,
                                   open_engine, red_to_move, to_engine_move)

FAKE = str(pathlib.Path(__file__).resolve().parent / "fake_engine.py")
HANG_MARGIN = 5.0         # seconds beyond a grace period before a wait counts as a hang
FAIRY = shutil.which("fairy-stockfish") or shutil.which("/usr/games/fairy-stockfish")
MAXQI = shutil.which("maxqi") or shutil.which("/usr/games/maxqi")
MIDGAME = "r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1CN3NC1/9/R1BAKAB1R w - - 4 3"
HANG = 10      # s: a guard against waiting forever, not a measure of speed


def env():
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    return e


def fake(*args, proto="uci", **kwargs):
    command = [sys.executable, FAKE, "--proto", proto, *args]
    return open_engine(command, proto, env=env(), **kwargs)


def children():
    """pids of this process's live (not zombie) children."""
    pids = set()
    for task in pathlib.Path("/proc/self/task").iterdir():
        try:
            pids.update(int(p) for p in (task / "children").read_text().split())
        except OSError:
            pass
    live = set()
    for pid in pids:
        try:
            state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            live.add(pid)
    return live


def legal_after(position, move):
    fen, moves = position
    board = Board(fen)
    for m in moves:
        board.push(m)
    return move in board.legal_moves()


# -- no process ---------------------------------------------------------------

def test_notation_translation():
    assert to_engine_move("h2e2", ranks1=True) == "h3e3"
    assert to_engine_move("a9a0", ranks1=True) == "a10a1"
    assert from_engine_move("h10g8", ranks1=True) == "h9g7"
    assert from_engine_move("b9c7", ranks1=False) == "b9c7"
    assert from_engine_move("a0a11", ranks1=True) is None      # rank 10 does not exist
    assert from_engine_move("a0a10", ranks1=False) is None
    assert from_engine_move("(none)", ranks1=False) is None
    assert from_engine_move("j1j2", ranks1=False) is None


def test_fen_and_side_to_move():
    assert engine_fen("4k4/9/9/9/9/9/9/9/9/4K4 r") == "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1"
    assert red_to_move((None, []))
    assert not red_to_move((None, ["h2e2"]))
    assert not red_to_move(("4k4/9/9/9/9/9/9/9/9/4K4 b - - 0 1", []))
    assert red_to_move(("4k4/9/9/9/9/9/9/9/9/3K5 b - - 0 1", ["e9e8"]))


def parser(cls=client.UciEngine, notation="ranks0"):
    """An engine object without a process, to test line parsing."""
    engine = cls.__new__(cls)
    engine.notation, engine.name = notation, "test"
    return engine


def test_uci_info_parsing_field_by_field():
    engine = parser(notation="ranks1")
    info = engine._parse_info("info depth 12 seldepth 18 multipv 1 score cp -35 upperbound "
                              "nodes 1234 nps 5000 hashfull 3 time 250 pv h3e3 h10g8 zz".split())
    assert (info.depth, info.seldepth, info.cp, info.bound) == (12, 18, -35, "upper")
    assert (info.nodes, info.nps, info.time) == (1234, 5000, 0.25)
    assert info.pv == ["h2e2", "h9g7"]                    # translated; stops at junk
    mate = engine._parse_info("info depth 5 score mate -3 pv".split())
    assert (mate.mate, mate.cp) == (-3, None)
    odd = engine._parse_info("info depth x score cp nonsense nodes 7 string hello world".split())
    assert (odd.depth, odd.cp, odd.nodes, odd.string) == (None, None, 7, "hello world")


def test_ucci_bare_score_and_info_merge():
    engine = parser(client.UcciEngine)
    info = engine._parse_info("info depth 4 score 27 time 3 nodes 99 pv h2e2".split())
    assert (info.depth, info.cp, info.pv) == (4, 27, ["h2e2"])
    merged = Info(depth=3, cp=10, nodes=5).merged(Info(depth=4, mate=2))
    assert (merged.depth, merged.cp, merged.mate, merged.nodes) == (4, None, 2, 5)


def test_xboard_features_and_thinking():
    assert xboard._features('feature ping=1 myname="Max Qi" variants="xiangqi,shogi" done=0') == \
        [("ping", "1"), ("myname", "Max Qi"), ("variants", "xiangqi,shogi"), ("done", "0")]
    engine = parser(client.XboardEngine)
    engine._state = (None, [])
    info = engine._search_line(" 7     12       32     531689 b7c7 h0g2", 0.1)
    assert (info.depth, info.cp, info.time, info.nodes, info.pv) == (7, 12, 0.32, 531689,
                                                                     ["b7c7", "h0g2"])
    result = engine._search_line("move b7c7", 0.25)
    assert (result.move, result.elapsed) == ("b7c7", 0.25)
    assert engine._search_line("resign", 0).resigned
    assert engine._search_line("1/2-1/2 {Draw by repetition}", 0).claim
    with pytest.raises(EngineProtocolError):
        engine._search_line("Illegal move: h2e2", 0)


# -- the fake engine: the failure contract ------------------------------------

@pytest.mark.parametrize("proto", ["uci", "ucci", "xboard"])
def test_fake_plays_in_every_dialect(proto):
    with fake(proto=proto) as engine:
        engine.configure({"hash": 32})
        engine.new_game()
        position = (None, ["h2e2"])
        result = engine.play(position, Limit(depth=3))
        assert legal_after(position, result.move)
        position = (MIDGAME, ["a0b0"]) if proto != "xboard" else (MIDGAME, [])
        result = engine.play(position, Limit(red_clock=1, black_clock=1, red_inc=0.1,
                                             black_inc=0.1))
        assert legal_after(position, result.move)
        assert result.info.depth == 3 and result.info.cp == 0


def test_unknown_option_leaves_the_engine_usable():
    with fake() as engine:
        with pytest.raises(UnsupportedError, match="no option 'Bogus'.*Hash"):
            engine.configure({"Bogus": 1})
        assert engine.alive
        assert engine.play((None, []), Limit(depth=1)).move


def test_crash_raises_and_reaps():
    engine = fake("--mode", "crash", "--at", "2")
    engine.play((None, []), Limit(depth=1))
    with pytest.raises(EngineTerminated, match="exit code 3"):
        engine.play((None, ["h2e2", "h9g7"]), Limit(depth=1))
    assert engine.proc.returncode == 3 and not engine.alive
    with pytest.raises(EngineTerminated):            # later calls fail cleanly
        engine.play((None, []), Limit(depth=1))
    engine.close()


@pytest.mark.parametrize("proto", ["uci", "xboard"])
def test_hang_times_out_and_is_killed(proto):
    engine = fake("--mode", "hang", proto=proto)
    start = time.monotonic()
    with pytest.raises(EngineTimeout):
        engine.play((None, []), Limit(movetime=0.1), timeout=0.5)
    assert time.monotonic() - start < HANG             # it gave up instead of waiting forever
    assert engine.proc.returncode is not None         # killed and reaped
    assert engine.proc.pid not in children()


def test_garbage_move_is_a_protocol_error():
    engine = fake("--mode", "garbage")
    with pytest.raises(EngineProtocolError, match="zz99"):
        engine.play((None, []), Limit(depth=1))
    assert engine.proc.returncode is not None


def test_noise_is_tolerated():
    with fake("--mode", "noise") as engine:
        result = engine.play((None, []), Limit(depth=1))
        assert legal_after((None, []), result.move)


def test_nomove_and_resign():
    with fake("--mode", "nomove") as engine:
        assert engine.play((None, []), Limit(depth=1)).move is None
    with fake("--mode", "resign", proto="xboard") as engine:
        assert engine.play((None, []), Limit(depth=1)).resigned


def test_handshake_timeout_reaps():
    before = children()
    start = time.monotonic()
    with pytest.raises(EngineTimeout):
        fake("--mode", "nohandshake", startup_timeout=0.5)
    assert time.monotonic() - start < HANG
    assert children() <= before


def test_missing_command():
    with pytest.raises(EngineTerminated, match="cannot start"):
        open_engine("/nonexistent/engine", "uci")


def test_close_kills_an_engine_that_ignores_quit():
    engine = fake("--mode", "stubborn")
    start = time.monotonic()
    engine.close()
    assert engine.proc.returncode is not None
    assert time.monotonic() - start < HANG


def test_context_manager_reaps():
    with fake() as engine:
        pid = engine.proc.pid
    assert pid not in children()


def test_analyse_stops_early_then_plays():
    with fake() as engine:
        infos = list(engine.analyse((None, []), Limit(depth=3)))
        assert infos and infos[-1].depth == 3 and infos[-1].pv
        assert legal_after((None, ["h2e2"]), engine.play((None, ["h2e2"]), Limit(depth=1)).move)


def test_analysis_wait_gives_the_move_and_merged_info():
    with fake() as engine:
        analysis = engine.analyse((None, []), Limit(depth=3))
        result = analysis.wait()
        assert legal_after((None, []), result.move)
        assert result is analysis.result and result.info is analysis.info
        assert (analysis.info.depth, analysis.info.nodes) == (3, 1000)
        assert list(analysis) == []                 # over: nothing more to read
        analysis.stop()                             # a no-op once over


def test_the_next_call_ends_an_analysis_that_will_not_stop():
    engine = fake("--mode", "deaf")
    for info in engine.analyse((None, []), Limit(depth=99)):
        if info.depth == 3:
            break
    assert engine.alive               # left open: the search runs until the next call
    with pytest.raises(EngineTerminated, match="did not stop its search"):
        engine.play((None, []), Limit(depth=1))
    assert engine.proc.returncode is not None


def test_xboard_fake_rejects_fen_less_engines_only_when_needed():
    with fake(proto="xboard") as engine:            # the fake has setboard=1
        position = (MIDGAME, ["a0b0"])
        assert legal_after(position, engine.play(position, Limit(depth=1)).move)
        with pytest.raises(UnsupportedError, match="node"):
            engine.play((None, []), Limit(nodes=100))
        assert engine.alive


# -- real engines -------------------------------------------------------------

def play_a_few(engine, fen=None):
    position = (fen, [])
    for limit in (Limit(depth=2), Limit(movetime=0.05), Limit(red_clock=0.5, black_clock=0.5)):
        result = engine.play(position, limit)
        assert legal_after(position, result.move), (position, result.move)
        position = (fen, position[1] + [result.move])
    return position


@pytest.mark.parametrize("proto", ["uci", "ucci"])
def test_fairy_stockfish(proto):
    need(FAIRY, "fairy-stockfish not installed")
    with open_engine(FAIRY, proto) as engine:
        # UCI writes ranks 1-10, UCCI 0-9: both reach us as a0-i9.
        assert engine.notation == ("ranks1" if proto == "uci" else "ranks0")
        engine.configure({"Hash": 16})
        engine.new_game()
        play_a_few(engine)
        play_a_few(engine, MIDGAME)
        infos = list(engine.analyse((None, []), Limit(depth=6)))
        assert max(i.depth or 0 for i in infos) == 6
        for info in engine.analyse((None, []), Limit(depth=60)):   # leave early: `stop`
            if info.depth == 4:
                break
        assert engine.alive and legal_after((None, []),
                                            engine.play((None, []), Limit(depth=2)).move)
        board = Board()
        for move in infos[-1].pv:           # the whole pv is legal in our notation
            board.push(move)


def test_fairy_stockfish_reports_mate():
    need(FAIRY, "fairy-stockfish not installed")
    with open_engine(FAIRY, "uci") as engine:
        result = engine.play(("4k4/4a4/3R5/9/9/9/9/9/9/4K4 w - - 0 1", []), Limit(depth=8))
        assert result.info.mate is not None and result.info.mate > 0


def test_a_stop_asked_from_another_thread_ends_an_infinite_analysis():
    """request_stop() from another thread: the reader's iteration ends with
    the engine's move; an engine that stays silent is ended after STOP_GRACE
    (EngineTimeout), not waited for until the infinite search's deadline."""
    from tuong.protocol.client import STOP_GRACE
    with open_engine(tuong_command(), "uci") as engine:
        analysis = engine.analyse((None, []), Limit(infinite=True))
        threading.Timer(0.3, analysis.request_stop).start()
        infos = list(analysis)
        assert infos and analysis.result and analysis.result.move
        assert engine.play((None, []), Limit(depth=1)).move     # nothing of it left behind
    with fake("--mode", "hang") as engine:
        analysis = engine.analyse((None, []), Limit(infinite=True))
        threading.Timer(0.3, analysis.request_stop).start()
        start = time.monotonic()
        with pytest.raises(EngineTimeout):
            list(analysis)
        assert time.monotonic() - start < STOP_GRACE + HANG_MARGIN
        assert not engine.alive


def test_play_refuses_a_limit_that_would_never_end():
    with open_engine(tuong_command(), "uci") as engine:
        with pytest.raises(ValueError, match="analyse"):
            engine.play((None, []), Limit(infinite=True))
        assert engine.play((None, []), Limit(depth=1)).move    # the engine goes on


@pytest.mark.parametrize("protocol", ["uci", "ucci", "xboard"])
def test_mates_come_back_as_mates_in_every_dialect(protocol):
    """UCCI writes a mate as a bare 10000 minus plies, xboard as 100000 + N:
    the client reads both as Info.mate, for the winner and the loser."""
    command = tuong_command()
    with open_engine(command, protocol) as engine:
        winner = engine.play(("4k4/4a4/3R5/9/9/9/9/9/9/4K4 w", []), Limit(depth=4)).info
        loser = engine.play(("3k5/4a4/9/9/9/9/9/9/3R5/4K4 b", []), Limit(depth=6)).info
    assert (winner.mate, winner.cp) == (2, None)
    assert (loser.mate, loser.cp) == (-2, None)


def test_maxqi_by_moves_only():
    need(MAXQI, "maxqi not installed")
    with open_engine(MAXQI, "xboard") as engine:
        assert engine.notation == "ranks0" and "xiangqi" in engine.features["variants"]
        engine.new_game()
        position = play_a_few(engine)
        # a jump in the move list: the client resets with `new` and replays the moves
        position = (None, ["b0c2", "h9g7", "h0g2"])
        assert legal_after(position, engine.play(position, Limit(depth=3)).move)
        with pytest.raises(UnsupportedError, match="cannot take a FEN"):
            engine.play((MIDGAME, []), Limit(depth=2))
        assert engine.alive


@pytest.fixture(scope="module")
def tuong_available():
    """A build that does not start or answer `uci` fails (never skips)."""
    proc = subprocess.run(shlex.split(tuong_command()), input="uci\nquit\n", capture_output=True,
                          text=True, timeout=60, cwd=ROOT, env=env())
    assert "uciok" in proc.stdout, f"tuong does not answer uci: {proc.stderr[-2000:]}"


def tuong(proto="uci"):
    return open_engine(tuong_command(), proto, env=env(), cwd=ROOT)


# Black to move: no move of a search from the initial position (Red's) is legal here.
BLACK_TO_MOVE = (None, ["h2e2"])


def test_an_analysis_left_open_does_not_answer_the_next_play(tuong_available):
    with tuong() as engine:
        analysis = engine.analyse((None, []), Limit(depth=60))
        for _info in analysis:
            break           # still searching, and still referenced: nothing collects it
        result = engine.play(BLACK_TO_MOVE, Limit(depth=1))
        assert legal_after(BLACK_TO_MOVE, result.move), result.move
        # play() stopped the analysis first; its move went to the analysis
        assert legal_after((None, []), analysis.result.move)
        analysis = engine.analyse((None, []), Limit(depth=60))
        next(analysis)
        engine.new_game()                           # any call ends it
        assert analysis.result is not None
        assert legal_after(BLACK_TO_MOVE, engine.play(BLACK_TO_MOVE, Limit(depth=1)).move)


def test_leaving_an_analysis_block_stops_the_search(tuong_available):
    with tuong() as engine:
        with engine.analyse((None, []), Limit(depth=60)) as analysis:
            for info in analysis:
                if info.depth == 2:
                    break
        # stopped and its move read on exit, before any other call
        assert legal_after((None, []), analysis.result.move)
        assert analysis.info.depth >= 2 and analysis.wait() is analysis.result
        analysis.stop()                             # idempotent
        assert legal_after(BLACK_TO_MOVE, engine.play(BLACK_TO_MOVE, Limit(depth=1)).move)


def test_plays_from_two_threads_take_turns(tuong_available):
    def player(position):
        return [(position, engine.play(position, Limit(depth=2)).move) for _ in range(6)]

    with tuong() as engine, ThreadPoolExecutor(2) as pool:
        futures = [pool.submit(player, p) for p in ((None, []), BLACK_TO_MOVE)]
        answers = [answer for f in futures for answer in f.result(timeout=120)]
    assert all(legal_after(position, move) for position, move in answers), answers


def test_tuong_not_on_path_is_the_running_interpreters(tuong_available, monkeypatch):
    """open_engine("tuong") from a virtual environment that is not activated
    (its bin/ not on PATH) starts `python -m tuong.protocol` of this
    interpreter; any other command is run as given."""
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert shutil.which("tuong") is None
    for command in ("tuong", ["tuong"]):
        with open_engine(command) as engine:
            assert engine.argv == [sys.executable, "-m", "tuong.protocol"]
            assert engine.name == "tuong" and engine.id["name"].lower().startswith("tuong")
            result = engine.play((None, []), Limit(depth=2))
            assert legal_after((None, []), result.move), result
    with pytest.raises(EngineTerminated, match="cannot start"):
        open_engine("tuong --no-such-option-is-needed-here", startup_timeout=5)


@pytest.mark.parametrize("proto", ["uci", "ucci", "xboard"])
def test_tuong(tuong_available, proto):
    with open_engine(tuong_command(), proto, env=env(), cwd=ROOT) as engine:
        engine.new_game()
        play_a_few(engine)
        play_a_few(engine, MIDGAME)


@pytest.mark.parametrize("proto", ["uci", "ucci", "xboard"])
def test_a_refused_option_value_raises_and_the_engine_plays_on(tuong_available, proto, tmp_path):
    # A match whose EvalFile cannot be read must not play on with the
    # engine's own network: the engine's refusal reaches the caller.
    missing = tmp_path / "missing.nnue"
    with open_engine(tuong_command(), proto, env=env(), cwd=ROOT) as engine:
        with pytest.raises(UnsupportedError, match="refused an option.*missing.nnue"):
            engine.configure({"Threads": 1, "EvalFile": str(missing)})
        engine.configure({"Threads": 1})           # an accepted value says nothing
        engine.new_game()
        assert legal_after((None, []), engine.play((None, []), Limit(depth=1)).move)


@pytest.mark.parametrize("proto", ["uci", "ucci", "xboard"])
def test_a_stop_after_the_engines_move_does_not_answer_the_next_search(tuong_available, proto):
    """The search is over (its move written, not yet read) when stop() sends
    the stop: tuong over UCCI answers that idle stop with `nobestmove`, which
    must not be read as the next search's answer."""
    with tuong(proto) as engine:
        for _ in range(2):
            analysis = engine.analyse((None, []), Limit(depth=3))
            time.sleep(1.0)             # depth 3 is over long before
            analysis.stop()
            assert legal_after((None, []), analysis.result.move)
            result = engine.play(BLACK_TO_MOVE, Limit(depth=2))
            assert result.move is not None and legal_after(BLACK_TO_MOVE, result.move), result


@pytest.mark.parametrize("proto", ["uci", "ucci", "xboard"])
def test_a_limited_strength_reports_the_line_it_plays(tuong_available, proto):
    """Issue 54 item 10: at UCI_Elo 800 the engine plays one of its MultiPV
    lines, and the client kept multipv 1's score and pv for the move played.
    The engine's last info before its move is the line it plays (multipv 1),
    and PlayResult.info is that line, in every dialect."""
    options = {"limitstrength": True, "elo": 800} if proto == "ucci" else \
        {"UCI_LimitStrength": True, "UCI_Elo": 800}
    # xboard has no depth without a clock (the client sends `st`): a short st.
    limit = Limit(movetime=0.2) if proto == "xboard" else Limit(depth=3)
    transcript = []
    with open_engine(tuong_command(), proto, env=env(), cwd=ROOT,
                     log=transcript.append) as engine:
        engine.configure(options)
        engine.new_game()
        position = (None, [])
        for _ in range(6):
            result = engine.play(position, limit)
            assert legal_after(position, result.move)
            info = result.info
            assert info.pv[:1] == [result.move], (result.move, info)
            assert info.cp is not None or info.mate is not None
            position = (None, position[1] + [result.move])
    if proto == "uci":       # the last info line before each bestmove: multipv 1, its pv
        read = [line.split(" > ", 1)[1] for line in transcript if " > " in line]
        for i, line in enumerate(read):
            if line.startswith("bestmove"):
                last = next(text for text in reversed(read[:i]) if text.startswith("info depth"))
                words = last.split()
                assert words[words.index("multipv") + 1] == "1", last
                assert words[words.index("pv") + 1] == line.split()[1], (last, line)


def test_a_limited_strength_searched_to_a_depth_over_xboard_answers_at_once(tuong_available):
    """xboard has no depth without a clock: the client sends `sd 2` with
    `st 86400`. A level's thinking time is a share of a clock, so it once
    waited a share of that day; a depth asks for no clock. The timeout below
    only stops a hang (the move takes milliseconds)."""
    with open_engine(tuong_command(), "xboard", env=env(), cwd=ROOT) as engine:
        engine.configure({"UCI_LimitStrength": True, "UCI_Elo": 800})
        engine.new_game()
        result = engine.play((None, []), Limit(depth=2), timeout=60)
        assert legal_after((None, []), result.move)

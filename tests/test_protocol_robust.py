"""The process never drops a result: every `go` is answered once, whatever
comes before the search thread has started, during it, or instead of more
input. Each test here failed on the build before these faults were fixed
(except where a docstring says the old code already coped).

In-process tests drive a Session with a searcher double whose worker side
waits at a gate, so "before the worker has started" is a state the test
holds, not a race it hopes to win. Process tests pipe commands into the
real engine, as a GUI or a shell script would."""
import io
import os
import shlex
import subprocess
import threading
import time

import pytest
from conftest import HANG, ROOT, tuong_command
from test_protocol_session import FakeSearcher, Lines

from tuong.engine import timeman
from tuong.engine.board import Board
from tuong.engine.search import Searcher
from tuong.protocol.options import default_threads
from tuong.protocol.session import Session


class GatedSearcher(FakeSearcher):
    """The session tests' fake searcher, whose worker side (run, run_perft)
    first waits for `gate`. prepare() runs on the caller's thread and
    resets the stop flag and the deadline, as the real one does; search()
    is prepare() + run() on one thread, the real searcher's one-call API
    (and all the old session called, on its worker). Its perft takes
    `perft_pause` s a root move: long enough to be stopped."""

    def __init__(self):
        super().__init__()
        self.gate = threading.Event()
        self.perft_pause = 0.02

    def run(self, on_info=None):
        assert self.gate.wait(HANG), "the test never opened the gate"
        return super().run(on_info)

    def search(self, board, *, on_info=None, **limits):
        assert self.gate.wait(HANG), "the test never opened the gate"
        self.prepare(board, **limits)
        return self.run(on_info)

    def run_perft(self, on_move=None):
        assert self.gate.wait(HANG), "the test never opened the gate"
        out = []
        for move in self.board.legal_moves():
            if self._stop.wait(self.perft_pause):
                return out, False
            out.append((move, 1))
            if on_move:
                on_move(move, 1)
        return out, True


@pytest.fixture
def gated():
    sessions = []

    def start(*lines):
        out, searcher = Lines(), GatedSearcher()
        session = Session(out=out, searcher=searcher)
        sessions.append((session, searcher))
        for line in lines:
            session.handle_line(line)
        return session, out, searcher

    yield start
    for session, searcher in sessions:
        searcher.gate.set()
        session.stop_search(discard=True)


def is_bestmove(line):
    return line.startswith("bestmove")


# -- stop and ponderhit before the worker has started ---------------------------------
def test_ponderhit_before_the_worker_starts_puts_the_search_on_the_clock(gated):
    """The old worker set its limits when it started, overwriting the clock
    a ponderhit had just given it: the search then ran without one."""
    session, out, searcher = gated("uci", "position startpos", "go ponder wtime 2000 btime 2000")
    session.handle_line("ponderhit")              # the worker is still at the gate
    searcher.gate.set()
    assert out.wait_for(is_bestmove), "the search never ended: the ponderhit was lost"
    assert len(out.starting("bestmove")) == 1


def test_stop_before_the_worker_starts_ends_the_search(gated):
    """(The old code coped by sending stop again and again until the thread
    ended; now one stop is enough, because the search is prepared first.)"""
    session, out, searcher = gated("uci", "position startpos", "go infinite")
    threading.Timer(0.05, searcher.gate.set).start()
    session.handle_line("stop")                   # returns once the search has ended
    assert out.starting("bestmove") == [f"bestmove {Board().legal_moves()[0]}"]


def test_ponderhit_does_not_release_go_infinite(gated):
    """`go infinite` answers only `stop`, as in Stockfish: a stray ponderhit
    must not let it print a bestmove of its own when it ends."""
    session, out, searcher = gated("uci", "position startpos", "go infinite depth 3")
    searcher.gate.set()
    session.handle_line("ponderhit")
    time.sleep(0.1)                               # depth 3 ended long ago
    assert not out.starting("bestmove")
    session.handle_line("stop")
    assert len(out.starting("bestmove")) == 1


def test_go_perft_runs_on_the_worker_and_stop_ends_it(gated):
    session, out, searcher = gated("uci", "position startpos", "go perft 4", "isready")
    assert out[-1] == "readyok"                   # answered while perft runs
    assert not out.starting("Nodes searched")
    searcher.gate.set()
    assert out.wait_for(lambda line: line[4:5] == ":")       # a root move counted
    session.handle_line("stop")
    assert out.starting("info string perft stopped")
    assert len(out.starting("Nodes searched")) == 1
    assert len([line for line in out if line[4:5] == ":"]) < 44


# -- a clock for the other side only --------------------------------------------------
@pytest.mark.parametrize("dialect,moves,go,missing", [
    ("uci", "moves h2e2", "go wtime 60000", "btime (Black to move)"),
    ("uci", "", "go btime 60000 binc 500 winc 500", "wtime (Red to move)"),
    ("uci", "moves h2e2", "go ponder wtime 60000 movestogo 10", "btime (Black to move)"),
    ("ucci", "", "go opptime 60 oppincrement 1", "time (Red to move)"),
])
def test_a_go_without_our_clock_moves_at_once_with_a_warning(gated, dialect, moves, go, missing):
    """The old code searched without any limit when the clock of the side to
    move was missing. As in Stockfish, that clock now counts as empty."""
    session, out, searcher = gated(dialect, f"position startpos {moves}", go)
    searcher.gate.set()
    if "ponder" in go:
        session.handle_line("ponderhit")
        assert searcher.limits[-1] == timeman.budget(0, 0, 10, 30) == (1, 1)
    else:
        assert (searcher.calls[-1]["soft_ms"], searcher.calls[-1]["hard_ms"]) == (1, 1)
    assert out.wait_for(is_bestmove, timeout=HANG)
    warnings = out.starting("info string warning:")
    assert len(warnings) == 1 and f"without {missing}" in warnings[0], warnings
    assert not out.starting("info string error")


@pytest.mark.parametrize("go", ["go wtime 60000 btime 60000 depth 2", "go depth 2",
                                "go movetime 100", "go winc 100 binc 100 depth 2"])
def test_a_go_with_our_clock_or_none_has_no_warning(gated, go):
    session, out, searcher = gated("uci", "position startpos moves h2e2", go)
    searcher.gate.set()
    assert out.wait_for(is_bestmove, timeout=HANG)
    assert not out.starting("info string")
    if "wtime" in go:
        assert (searcher.calls[-1]["soft_ms"], searcher.calls[-1]["hard_ms"]) == \
            timeman.budget(60000, 0, None, 10)


# -- a search that cannot even be prepared ---------------------------------------------
class RefusingSearcher(GatedSearcher):
    def prepare(self, *args, **kwargs):
        raise RuntimeError("cannot prepare")

    def prepare_perft(self, *args, **kwargs):
        raise RuntimeError("cannot prepare")


def test_a_search_that_cannot_be_prepared_still_answers():
    """Since the search is prepared on the protocol thread, an exception
    there escaped `go` as an internal error and the go was never answered."""
    out, searcher = Lines(), RefusingSearcher()
    searcher.gate.set()
    session = Session(out=out, searcher=searcher)
    for line in ("uci", "position startpos", "go depth 3"):
        session.handle_line(line)
    assert out.wait_for(is_bestmove)
    assert out.starting("bestmove")[0].split()[1] in Board().legal_moves()
    assert any("search failed" in line and "cannot prepare" in line for line in out)
    session.handle_line("go perft 2")
    assert out.wait_for(lambda line: line.startswith("Nodes searched"))
    session.stop_search()
    assert len(out.starting("bestmove")) == 1


# -- end of input --------------------------------------------------------------------
@pytest.mark.parametrize("commands", ["go depth 3", "go", "go infinite", "go ponder",
                                      "go ponder\nponderhit", "go perft 1"])
def test_end_of_input_answers_the_last_go(commands):
    """Input ends during a search: a finite one is finished, one without an
    end is stopped, and either prints its bestmove before run() returns."""
    out, searcher = Lines(), GatedSearcher()
    searcher.gate.set()
    searcher.perft_pause = 0
    session = Session(out=out, searcher=searcher)
    stream = io.BytesIO(f"uci\nposition startpos\n{commands}\n".encode())
    runner = threading.Thread(target=session.run, args=(stream,), daemon=True)
    runner.start()
    runner.join(HANG)
    assert not runner.is_alive(), "run() did not return at end of input"
    if "perft" in commands:
        assert out.starting("Nodes searched") == ["Nodes searched: 44"]
    else:
        assert len(out.starting("bestmove")) == 1


# -- the real process ------------------------------------------------------------------
def test_go_ponder_then_ponderhit_at_once_plays_within_the_clock(engine):
    """go ponder and ponderhit in one write: the ponderhit may reach the
    session before the search thread runs. The clock is 5 s; the budget a
    fraction of it. (The old worker could overwrite the ponderhit's clock
    and ponder on forever; that was a race, so it failed only sometimes.)"""
    e = engine()
    for _round in range(5):
        e.send("position startpos moves h2e2\ngo ponder wtime 5000 btime 5000\nponderhit")
        e.expect(r"bestmove \S+", timeout=5)
        e.send("isready")
        e.expect("readyok", timeout=HANG)
        assert "bestmove" not in e.before           # exactly one per go


def test_go_infinite_then_stop_at_once_answers(engine):
    """(The old code also answered: it repeated stop until the thread ended.)"""
    e = engine()
    for _round in range(5):
        e.send("position startpos\ngo infinite\nstop\nisready")
        e.expect(r"bestmove \S+", timeout=HANG)
        e.expect("readyok", timeout=HANG)
        assert "bestmove" not in e.before


def test_ponder_time_does_not_count_after_ponderhit():
    """The "can the next iteration finish" test counted the time since the
    search started, ponder time included: a ponderhit after P seconds with
    a target S < 1.5 P stopped the search at the next iteration's end. Here
    the ponderhit comes at an iteration boundary (from on_info, on the
    search thread), so the outcome does not depend on timing: the search
    must go on to at least one more iteration on its new clock."""
    searcher = Searcher(16, threads=default_threads())
    board = Board()
    board.push("h2e2")
    hit = {}
    depths = []

    def on_info(info):
        depths.append(info.depth)
        if not hit and info.time_ms >= 300 and info.bound is None:
            hit["depth"] = info.depth
            # A target below 1.5 x the time already spent; no hard cap, so
            # an iteration that starts also finishes.
            searcher.set_limits(soft_ms=max(1, info.time_ms))

    result = searcher.search(board, on_info=on_info)      # "go ponder": no limit at first
    assert hit, "never reached 300 ms"
    assert result.depth > hit["depth"], (hit, depths)


def test_ponderhit_keeps_searching_for_part_of_its_budget(engine):
    """Ponder 1 s, then ponderhit with a 1.4 s target (below 1.5 x the
    ponder time). The search must now go on for at least target / 2.5 (its
    rule for starting another iteration), and finish at least one more
    iteration, instead of answering when the current one ends. Only lower
    bounds on time: load can make the engine slower, never faster."""
    e = engine()
    wtime = 30 * 1400 + 10 * 32                     # budget: a 1.4 s target
    soft, hard = timeman.budget(wtime, 0, None, 10)
    assert soft == 1400
    e.send("position startpos moves h2e2")
    e.send(f"go ponder wtime {wtime} btime {wtime}")
    e.expect("info depth 1 ", timeout=HANG)
    time.sleep(1.0)
    e.send("isready")                                 # mark the ponderhit in the output
    e.expect("readyok", timeout=HANG)
    start = time.monotonic()
    e.send("ponderhit")
    e.expect(r"bestmove \S+", timeout=HANG + hard / 1000)
    after = time.monotonic() - start
    iterations = [line for line in e.before.splitlines()
                  if line.startswith("info depth") and "bound" not in line]
    assert iterations, "no iteration finished after the ponderhit"
    assert after >= 0.9 * soft / 2.5 / 1000, f"answered {after:.2f} s after ponderhit"


def test_a_clock_for_the_other_side_only_moves_at_once(engine):
    e = engine()
    e.send("position startpos moves h2e2")
    e.send("go wtime 60000 winc 1000")
    e.expect(r"bestmove \S+", timeout=HANG)
    assert "info string warning: go without btime (Black to move)" in e.before
    e.send("isready")
    e.expect("readyok", timeout=HANG)


def test_ucci_ban_of_another_position_is_not_applied(engine):
    """banmoves, then a new game from `setoption newgame`: the ban named
    moves of the old position, and the go after it failed inside the
    search and never answered (found by the fuzz)."""
    e = engine("ucci")
    e.send("position startpos moves h2e2 h9g7")
    e.send("banmoves e2e6")                          # legal only after h2e2 h9g7
    e.send("setoption newgame")
    e.send("go depth 2")
    assert e.expect(r"bestmove (\S+)").group(1) in Board().legal_moves()
    e.send("isready")
    e.expect("readyok")
    assert "error" not in e.before


@pytest.mark.parametrize("game", ["tictactoe", "dodgem", "queens"])
def test_a_small_game_fen_with_a_huge_run_is_refused_at_once(engine, game):
    """'2147483648 b' once made the small games' FEN reader build a list of
    two billion empty cells: the engine stopped answering (found by the
    fuzz)."""
    e = engine()
    e.send(f"setoption name UCI_Variant value {game}")
    for fen in ("2147483648 b", "3/99999999999/3 w", "1/2/18446744073709551617 w"):
        e.send(f"position fen {fen}")
        assert "bad run of empty cells" in e.line("info string error: ")
    e.send("isready")
    e.expect("readyok")


def test_go_perft_answers_isready_and_stops(engine):
    e = engine()
    e.send("position startpos")
    e.send("go perft 7")                               # hours of work
    e.send("isready")
    e.expect("readyok", timeout=HANG)
    assert "Nodes searched" not in e.before
    e.send("stop")
    total = int(e.expect(r"Nodes searched: (\d+)", timeout=HANG).group(1))
    assert "info string perft stopped" in e.before
    counted = [line for line in e.before.splitlines() if line[4:5] == ":"]
    assert total == sum(int(line.split()[1]) for line in counted)
    e.send("go perft 2")                              # and the engine is still usable
    assert e.expect(r"Nodes searched: (\d+)", timeout=HANG).group(1) == "1920"


def test_quit_ends_go_perft(engine):
    e = engine()
    e.send("go perft 7")
    e.send("quit")
    assert e.child.proc.wait(timeout=HANG) == 0


def piped(text, timeout=HANG * 3):
    """`printf text | tuong`, as a shell script runs it: (stdout, exit code)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run(shlex.split(tuong_command()), input=text, capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT, env=env)
    return done.stdout, done.returncode


@pytest.mark.parametrize("go", ["go depth 5", "go nodes 20000", "go movetime 200",
                                "go wtime 2000 btime 2000", "go infinite", "go",
                                "go ponder", "go ponder\nponderhit",
                                "go ponder wtime 2000 btime 2000\nponderhit"])
def test_piped_go_then_end_of_input_prints_one_bestmove(go):
    """The search with a limit finishes first; the others are stopped; each
    prints exactly one bestmove and the process exits 0 by itself."""
    stdout, code = piped(f"uci\nposition startpos\n{go}\n")
    assert code == 0
    assert len([line for line in stdout.splitlines() if line.startswith("bestmove ")]) == 1, stdout
    if go == "go depth 5":
        assert "info depth 5 " in stdout


def test_piped_dialects_answer_at_end_of_input():
    stdout, code = piped("ucci\nposition startpos\ngo depth 3\n")
    assert code == 0 and stdout.splitlines()[-1].startswith("bestmove ")
    stdout, code = piped("xboard\nprotover 2\nnew\nsd 3\nusermove h2e2\n")
    assert code == 0 and stdout.splitlines()[-1].startswith("move ")
    stdout, code = piped("uci\nposition startpos\ngo perft 3\n")
    assert code == 0 and stdout.splitlines()[-1] == "Nodes searched: 79666"


# -- files an option names that are no files -------------------------------------

@pytest.mark.parametrize("option", ["EvalFile", "BookFile"])
@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "folder"])
def test_a_file_option_naming_a_pipe_or_a_device_is_refused_at_once(engine, tmp_path, option,
                                                                    kind):
    """A FIFO would block open() until a writer came; /dev/zero would be read
    until memory ran out. Either is refused with an error, and the engine
    answers its next command."""
    if kind == "fifo":
        path = tmp_path / "pipe"
        os.mkfifo(path)
    elif kind == "folder":
        path = tmp_path
    else:
        path = kind
    process = engine()
    process.send(f"setoption name {option} value {path}")
    message = process.line("info string error: ", timeout=10)
    assert str(path) in message, message
    process.send("isready")
    process.expect("readyok", timeout=10)
    process.send("position startpos")
    process.send("go depth 2")
    process.expect(r"bestmove \S+", timeout=20)

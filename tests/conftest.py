"""Shared helpers: reference data, translation to pyffish's notation, and
`need`: what a test needs from outside (a peer engine, an optional
package, ../shared)."""
import importlib
import os
import pathlib
import shutil
import sys
import time

import pexpect
import pytest
from pexpect.popen_spawn import PopenSpawn

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Seconds to wait for an answer that should come at once: only a guard
# against a hang, never a measure of speed (the machine may be loaded).
HANG = 10
DATA = pathlib.Path(__file__).resolve().parent / "data"


# CI installs every peer and extra (.ci/run): there a missing one fails the
# run. Elsewhere a test that lacks one skips, with the reason (pytest -rs).
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def need(present, what):
    """Go on if `present`; else skip locally, fail in CI."""
    if present:
        return
    if IN_CI:
        pytest.fail(f"{what} (in CI every peer and dependency must be there)", pytrace=False)
    pytest.skip(what, allow_module_level=True)


def need_module(name):
    """The module `name`, imported; else skip locally, fail in CI."""
    try:
        return importlib.import_module(name)
    except ImportError as e:
        need(False, f"{name} is not installed ({e})")


def reference_file(name):
    """../shared/reference/NAME when the shared folder is beside the repo,
    else the copy this repo keeps (tests/data/perft.txt, and bench.txt in
    tools/data where tuong-bench finds it); test_perft compares them."""
    shared = ROOT.parent / "shared" / "reference" / name
    if shared.exists():
        return shared
    return DATA / name if name == "perft.txt" else ROOT / "tools" / "data" / name


def read_perft_reference():
    """[(fen, {depth: count})] from perft.txt."""
    cases = []
    for line in reference_file("perft.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fen, *fields = line.split(";")
        counts = {int(f.split()[0][1:]): int(f.split()[1]) for f in fields}
        cases.append((fen.strip(), counts))
    return cases


def read_bench_fens():
    return [line.strip() for line in reference_file("bench.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")]


def mirror_colours(fen):
    """Swap the colours: ranks upside down, case swapped, the other side to move."""
    placement, side = fen.split()[:2]
    ranks = placement.split("/")[::-1]
    return "/".join(r.swapcase() for r in ranks) + (" b" if side == "w" else " w")


def mirror_files(fen):
    """Files a-i become i-a (board and side to move)."""
    placement, side = fen.split()[:2]
    return "/".join(r[::-1] for r in placement.split("/")) + " " + side


def to_ranks1(move):
    """a0-i9 -> Fairy-Stockfish's a1-i10."""
    return f"{move[0]}{int(move[1]) + 1}{move[2]}{int(move[3]) + 1}"


def from_ranks1(move):
    """Fairy-Stockfish's a1-i10 -> a0-i9 (ranks may have two digits)."""
    second = next(i for i in range(2, len(move)) if move[i].isalpha())
    return f"{move[0]}{int(move[1:second]) - 1}{move[second]}{int(move[second + 1:]) - 1}"


def tuong_command():
    """How to start our engine process: the console script if installed,
    else `python -m tuong.protocol`."""
    script = shutil.which("tuong")
    if script:
        return script
    return f"{sys.executable} -m tuong.protocol"


@pytest.fixture
def restore_weights():
    """For a test that loads other evaluation weights: the default ones
    are loaded again after it."""
    yield
    from tuong.engine.evaluate import load_weights
    load_weights()


@pytest.fixture
def engine_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


class EngineProcess:
    """`tuong` on pipes, as a GUI runs it. Every wait has a timeout."""

    def __init__(self, env, timeout=HANG):
        self.child = PopenSpawn(tuong_command(), cwd=str(ROOT), env=env, timeout=timeout,
                                encoding="utf-8", codec_errors="replace")

    def send(self, line):
        self.child.sendline(line)

    def send_bytes(self, data):
        """Raw bytes, not necessarily UTF-8, straight into the pipe."""
        self.child.proc.stdin.write(data)
        self.child.proc.stdin.flush()

    def expect(self, pattern, timeout=HANG):
        """Wait for a regex; returns the match. Text before it is in .before."""
        self.child.expect(pattern, timeout=timeout)
        self.before = self.child.before
        return self.child.match

    def line(self, pattern, timeout=HANG):
        """The whole next line matching `pattern` (anchored at line start)."""
        return self.expect(rf"(?m)^{pattern}[^\r\n]*", timeout).group(0)

    def error_for(self, command, *words):
        """Send `command` and return the error line it must answer with,
        which must contain each of `words`."""
        self.send(command)
        message = self.line("info string error: ")
        for word in words:
            assert word in message, message
        return message

    def silent(self, pattern, seconds):
        """True if `pattern` does NOT appear within `seconds`."""
        try:
            self.child.expect(pattern, timeout=seconds)
        except pexpect.TIMEOUT:
            return True
        return False

    def roundtrip(self, command, reply, timeout=HANG):
        """Seconds from sending `command` to reading `reply` (for reports:
        tests bound it only by the hang guard)."""
        start = time.perf_counter()
        self.send(command)
        self.expect(reply, timeout)
        return time.perf_counter() - start

    def close(self, timeout=HANG):
        """EOF on stdin; the process must exit by itself. Its exit code."""
        self.child.sendeof()
        try:
            return self.child.proc.wait(timeout=timeout)
        except Exception:
            self.child.proc.kill()
            raise


@pytest.fixture
def engine(engine_env):
    processes = []

    def start(first="uci"):
        """The process after the `first` handshake (uci or ucci; None: none)."""
        process = EngineProcess(engine_env)
        processes.append(process)
        if first is not None:
            process.send(first)
            process.expect(f"{first}ok")
        return process

    yield start
    for process in processes:
        if process.child.proc.poll() is None:
            process.child.proc.kill()
            process.child.proc.wait(timeout=5)


@pytest.fixture(autouse=True)
def hand_crafted_evaluation():
    """Every test starts with the hand-crafted evaluation in force in this
    process (the engine's session and tools load the shipped network; a test
    that wants it loads it), whatever the test before it loaded."""
    from tuong.engine import evalfile, nnue, weights
    if nnue.active() is not None:
        evalfile.load(weights.DEFAULT_PATH)
    yield


def random_board(rng, plies):
    """A Board after up to `plies` random legal moves from the start (fewer
    if the game ends)."""
    from tuong.engine.board import Board
    board = Board()
    for _ in random_plies(rng, board, plies):
        pass
    return board


def random_plies(rng, board, plies):
    """Play up to `plies` random legal moves on `board`, yielding the ply
    number after each (the caller may take moves back in between)."""
    for ply in range(plies):
        moves = board.legal_moves()
        if not moves:
            return
        board.push(rng.choice(moves))
        yield ply

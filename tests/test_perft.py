"""The move generator against the perft reference (two engines agree on
every number). Depths up to FAST_NODES leaves run by default; every line,
to its deepest depth, runs under -m slow."""
import re
import subprocess
import sys

import pytest
from conftest import DATA, ROOT, need, read_perft_reference

from tuong.engine.board import Board

FAST_NODES = 300_000
CASES = [pytest.param(fen, depth, count, id=f"{index}-d{depth}")
         for index, (fen, counts) in enumerate(read_perft_reference())
         for depth, count in sorted(counts.items())]


@pytest.mark.parametrize("fen,depth,count",
                         [c for c in CASES if c.values[2] <= FAST_NODES])
def test_perft_fast(fen, depth, count):
    assert Board(fen).perft(depth) == count


@pytest.mark.slow
@pytest.mark.parametrize("fen,depth,count",
                         [c for c in CASES if c.values[2] > FAST_NODES])
def test_perft_deep(fen, depth, count):
    assert Board(fen).perft(depth) == count


@pytest.mark.parametrize("name,copy", [("perft.txt", DATA / "perft.txt"),
                                       ("bench.txt", ROOT / "tools" / "data" / "bench.txt")])
def test_reference_copies_match_shared(name, copy):
    shared = ROOT.parent / "shared" / "reference" / name
    need(shared.exists(), "../shared is not beside this checkout")
    assert shared.read_text() == copy.read_text()


def test_divide_sums_to_perft():
    board = Board()
    divide = board.divide(3)
    assert len(divide) == 44
    assert sum(count for _, count in divide) == 79666
    board.push("h2e2")
    assert board.perft(2) == dict(divide)["h2e2"]


def _perft_tool(*args):
    return subprocess.run([sys.executable, "-m", "tuong.tools.perft", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def test_perft_tool_divide_output():
    out = _perft_tool("startpos", "2", "--divide")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[-1] == "Nodes searched: 1920"
    moves = [line for line in lines if re.fullmatch(r"[a-i][0-9][a-i][0-9]: \d+", line)]
    assert len(moves) == 44
    assert "h2e2: 45" in lines
    assert any(line.startswith("Nodes per second:") for line in lines)
    assert any(line.startswith("Time:") for line in lines)


def test_perft_tool_takes_fen_fields_and_rejects_bad_fen():
    fen, counts = read_perft_reference()[3]
    out = _perft_tool(*fen.split(), "2")
    assert out.stdout.splitlines()[-1] == f"Nodes searched: {counts[2]}"
    bad = _perft_tool("rnbakabnr/9/9 w", "2")
    assert bad.returncode != 0 and "ranks" in bad.stderr

"""Shared helpers: reference data and translation to pyffish's notation."""
import os
import pathlib
import shutil
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = pathlib.Path(__file__).resolve().parent / "data"


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
    else `python -m protocol` from the source tree."""
    script = shutil.which("tuong")
    if script:
        return script
    return f"{sys.executable} -m protocol"


@pytest.fixture
def engine_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env

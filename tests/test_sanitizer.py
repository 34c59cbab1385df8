"""The Cython core under AddressSanitizer: a copy of the sources built with
-fsanitize=address runs perft and searches (which read the move tables,
the check hints and the transposition table) with no memory error. Slow
(a build of its own): pytest -m slow tests/test_sanitizer.py."""
import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT, need

RUN = """
from tuong.engine.board import Board, START_FEN
from tuong.engine.search import Searcher
from conftest import read_bench_fens
assert Board().perft(4) == 3290240
for fen in [START_FEN] + read_bench_fens():
    Searcher(16).search(Board(fen), depth=8)
print("clean")
"""


@pytest.mark.slow
def test_perft_and_searches_under_address_sanitizer(tmp_path):
    need(shutil.which("gcc"), "gcc is not installed")
    runtime = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True,
                             text=True).stdout.strip()
    need(os.path.isabs(runtime) and os.path.exists(runtime), "gcc has no libasan")
    # pyproject.toml maps tuong.engine to engine/, where the build must land.
    tracked = subprocess.run(["git", "ls-files", "setup.py", "pyproject.toml", "README.md",
                              "engine"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.split()
    for name in tracked:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, tmp_path / name)
    flags = "-fsanitize=address -fno-omit-frame-pointer"
    env = {**os.environ, "CFLAGS": flags, "LDFLAGS": "-fsanitize=address"}
    subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "-q"], cwd=tmp_path,
                   env=env, check=True, capture_output=True)
    (tmp_path / "path").mkdir()                 # the copy, importable as the package tuong
    (tmp_path / "path" / "tuong").symlink_to(tmp_path)
    env = {**os.environ, "LD_PRELOAD": runtime, "ASAN_OPTIONS": "detect_leaks=0",
           "PYTHONPATH": f"{tmp_path / 'path'}{os.pathsep}{ROOT / 'tests'}"}
    run = subprocess.run([sys.executable, "-c", RUN], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=1800)
    assert "AddressSanitizer" not in run.stderr, run.stderr[-3000:]
    assert run.returncode == 0 and "clean" in run.stdout, run.stderr[-3000:]

"""Types for library users: mypy accepts tests/typing/check_api.py (the
public API used as a user would), rejects a wrong use of it, and stubtest
finds the stubs beside engine/*.pyx in step with the compiled modules.

mypy cannot follow setuptools' editable install (an import hook), so each
check gets a tuong/ tree of links to engine/, protocol/ and tools/ (and to
tuong/__init__.py, the top package's only module) and finds
the packages through MYPYPATH, as it would find an installed wheel. Imported
modules are followed silently (--follow-imports=silent), as mypy treats an
installed package: the errors that count are those a user's code meets.

    python tests/test_typing.py [MYPY ARGS]    mypy on check_api.py (or ARGS) the same way
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import ROOT, need_module

CHECK_API = ROOT / "tests" / "typing" / "check_api.py"
# Three scripts a user wrote from the documentation site alone (issue 55):
# analyse a FEN, rewrite a collection in WXF, play a level against full
# strength; tests/test_user_scripts.py runs them.
USER_SCRIPTS = sorted((ROOT / "tests" / "typing" / "scripts").glob("*.py"))
ALLOWLIST = ROOT / "tests" / "typing" / "stubtest-allowlist.txt"
PACKAGES = {"engine": "engine", "protocol": "protocol", "tools": "tools"}
TOP = ("__init__.py", "py.typed")          # the files of tuong/ itself
# The compiled modules that have a stub (engine/NAME.pyi beside NAME.pyx).
STUBBED = sorted(p.stem for p in (ROOT / "engine").glob("*.pyi"))


def package_tree(where):
    """A folder holding tuong/engine, tuong/protocol, tuong/tools: links to
    the repository's folders (copies of the sources where links cannot be
    made), and tuong/__init__.py, the top's (tuong.__version__)."""
    tuong = Path(where) / "tuong"
    tuong.mkdir(parents=True, exist_ok=True)
    for name in TOP:
        target = tuong / name
        if not target.exists():
            try:
                os.symlink(ROOT / "tuong" / name, target)
            except OSError:
                shutil.copy2(ROOT / "tuong" / name, target)
    for name, folder in PACKAGES.items():
        target = tuong / name
        if target.exists():
            continue
        try:
            os.symlink(ROOT / folder, target, target_is_directory=True)
        except OSError:
            shutil.copytree(ROOT / folder, target, ignore=shutil.ignore_patterns(
                "__pycache__", "*.so", "*.pyd", "*.c", "*.html"))
    return Path(where)


def run_mypy(args, tree, cache):
    """`python -m mypy ARGS` in the repository root (its pyproject.toml
    configures mypy), finding tuong in `tree`."""
    env = dict(os.environ, MYPYPATH=str(tree))
    return subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(cache),
                           "--follow-imports=silent", *map(str, args)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def mypy_tree(tmp_path_factory):
    need_module("mypy")
    base = tmp_path_factory.mktemp("typing")
    return package_tree(base / "tree"), base / "cache"


def test_check_api_type_checks(mypy_tree):
    done = run_mypy([CHECK_API], *mypy_tree)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_users_scripts_type_check_strictly(mypy_tree):
    """`mypy --strict` on scripts written from the guide and the API pages as
    a user writes them: no error, so no untyped function, missing stub name
    or leaked Any of the library meets a strict user."""
    assert [script.name for script in USER_SCRIPTS] == \
        ["analyse_fen.py", "level_game.py", "rewrite_wxf.py"]
    done = run_mypy(["--strict", *USER_SCRIPTS], *mypy_tree)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found in 3 source files" in done.stdout, done.stdout


def test_the_whole_house_type_checks(mypy_tree):
    """Every module of engine/, protocol/ and tools/, with the stubs: the hints
    inside agree with each other, not only at the public surface."""
    tree, cache = mypy_tree
    env = dict(os.environ, MYPYPATH=str(tree))
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(cache),
                           "-p", "tuong.engine", "-p", "tuong.protocol", "-p", "tuong.tools"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_wrong_use_is_reported(mypy_tree, tmp_path):
    """The check can fail: a wrong use of the API is an error, at its line.
    Notations and protocols are Literal types: a name in the wrong case
    ("WXF", "UCI"), which fails at run time, fails the check first."""
    wrong = tmp_path / "wrong_use.py"
    wrong.write_text("from tuong.engine.board import Board\n"
                     "from tuong.protocol.book import Book\n"
                     "from tuong.protocol.client import Limit, open_engine\n"
                     "from tuong.tools.records import Record, format_pgn, notation\n"
                     "Board().push(3)\n"                       # a move is text
                     "Board().fen() + 1\n"                     # a FEN is a str
                     "Book.open('x').probe(Board())\n"         # probe takes a FEN
                     "with open_engine('tuong') as engine:\n"  # the types reach `with`:
                     "    engine.play(Board().fen(), Limit())\n"   # a position is (fen, moves)
                     "open_engine('tuong', 'uci', timeout=3)\n"    # no such keyword
                     "notation.write(Board(), 'h2e2', 'WXF')\n"    # notations are lowercase
                     "format_pgn(Record({}, [], []), 'WXF')\n"
                     "notation.write(Board(), 'h2e2', 'wxf')\n"    # (the right names pass)
                     "format_pgn(Record({}, [], []), 'chinese')\n"
                     "open_engine('tuong', 'UCI')\n"               # so are protocols
                     "open_engine('tuong', 'xboard')\n")
    done = run_mypy([wrong], *mypy_tree)
    assert done.returncode == 1, done.stdout + done.stderr
    assert re.findall(r"wrong_use\.py:(\d+): error", done.stdout) == \
        ["5", "6", "7", "9", "10", "11", "12", "15"], done.stdout


def test_stubs_match_the_compiled_modules(mypy_tree):
    """stubtest: every public name of the compiled modules is in its stub,
    with the same arguments (allowlist: tests/typing/stubtest-allowlist.txt)."""
    tree, cache = mypy_tree
    env = dict(os.environ, MYPYPATH=str(tree))
    command = [sys.executable, "-m", "mypy.stubtest", "--allowlist", str(ALLOWLIST)]
    options = subprocess.run([*command[:3], "--help"], capture_output=True, text=True,
                             timeout=120).stdout
    if "--ignore-disjoint-bases" in options:    # newer stubtest: PEP 800 marks, not used here
        command.append("--ignore-disjoint-bases")
    done = subprocess.run([*command, *(f"tuong.engine.{name}" for name in STUBBED)],
                          # stubtest keeps its cache in .mypy_cache under the current folder
                          cwd=cache.parent, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as scratch:
        done = run_mypy(sys.argv[1:] or [CHECK_API], package_tree(Path(scratch) / "tree"),
                        Path(scratch) / "cache")
        print(done.stdout + done.stderr, end="")
        sys.exit(done.returncode)

"""What the tests need from outside: a missing peer or optional package
skips a test locally (saying why) but fails it in CI, and CI's script stops
when it cannot install the peers rather than letting their tests skip."""
import os
import subprocess
import sys

import pytest
from conftest import ROOT

NEEDY_TEST = """
from conftest import need, need_module

no_such = need_module("no_such_module_for_tuong")

def test_needs_it():
    pass
"""


@pytest.mark.parametrize("ci, outcome", [("true", "1 error"), ("", "1 skipped")])
def test_a_missing_dependency_fails_in_ci_and_skips_elsewhere(tmp_path, ci, outcome):
    (tmp_path / "test_needy.py").write_text(NEEDY_TEST)
    env = {**os.environ, "CI": ci,
           "PYTHONPATH": str(ROOT / "tests") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                          str(tmp_path / "test_needy.py")], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=60)
    assert outcome in run.stdout, run.stdout
    assert "no_such_module_for_tuong is not installed" in run.stdout
    assert (run.returncode in (0, 5)) != bool(ci)       # 5: pytest ran nothing (all skipped)


def test_ci_stops_when_the_peers_cannot_be_installed(tmp_path):
    """A failing apt-get (and a python3 that would show the script went on)
    placed first on PATH: the script must stop at once with apt's words."""
    for name, code in (("apt-get", 100), ("python3", 99)):
        path = tmp_path / name
        path.write_text(f"#!/bin/sh\necho {name} says no >&2\nexit {code}\n")
        path.chmod(0o755)
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}", "CI": "true"}
    run = subprocess.run(["bash", str(ROOT / ".ci" / "run")], env=env, capture_output=True,
                         text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert run.returncode == 1, (run.returncode, run.stderr)
    assert "installing the peer engines failed" in run.stderr
    assert "apt-get says no" in run.stderr

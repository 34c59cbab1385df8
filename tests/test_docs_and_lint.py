"""The house's own checks: the documentation site builds with every warning
an error (a broken link, a missing anchor, a page left out of the
navigation, an API page whose module cannot be read), and the linter
(ruff, configured in pyproject.toml) finds nothing. Each needs its tool:
locally a missing one skips, in CI it fails (`pip install '.[docs]'`, and
ruff comes with the test extra)."""
import os
import subprocess
import sys

from conftest import ROOT, need_module


def test_the_site_builds_with_warnings_as_errors(tmp_path):
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        need_module(module)
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(tmp_path / "site")], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert (tmp_path / "site" / "api" / "board" / "index.html").exists()
    board = (tmp_path / "site" / "api" / "board" / "index.html").read_text()
    assert "legal_moves" in board          # the API page is rendered from the stub


def test_the_linter_finds_nothing():
    need_module("ruff")
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]

"""The house's own checks: the documentation site builds with every warning
an error (a broken link, a missing anchor, a page left out of the
navigation, an API page whose module cannot be read), and the linter
(ruff, configured in pyproject.toml) finds nothing. Each needs its tool:
locally a missing one skips, in CI it fails (`pip install '.[docs]'`, and
ruff comes with the test extra). Also: CHANGELOG.md keeps the form of Keep a
Changelog 1.1.0, and docs/requirements.txt (the site's dependencies without
tuong itself) lists what pyproject.toml's docs extra lists."""
import datetime
import os
import re
import subprocess
import sys

from conftest import ROOT, need_module


def pyproject():
    """pyproject.toml's [project] table (tomllib from Python 3.11, tomli before)."""
    try:
        import tomllib
    except ImportError:
        tomllib = need_module("tomli")
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_the_site_builds_with_warnings_as_errors(tmp_path):
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        need_module(module)
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(tmp_path / "site")], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    # api/board.html, not api/board/index.html: Material's offline plugin turns directory
    # URLs off (mkdocs.yml), so that the pages link to each other from disk too.
    board = (tmp_path / "site" / "api" / "board.html").read_text()
    assert "legal_moves" in board          # the API page is rendered from the stub


def test_the_linter_finds_nothing():
    need_module("ruff")
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]


# Keep a Changelog 1.1.0: "## [Unreleased]" first, then "## [X.Y.Z] - YYYY-MM-DD", newest first;
# under each, "### " sections of these kinds only, each at most once and not empty.
SECTIONS = ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security")
VERSION = re.compile(r"## \[(\d+)\.(\d+)\.(\d+)\] - (\d{4}-\d{2}-\d{2})")


def changelog_versions(text):
    """[(heading, {section: its lines})] in the file's order; a heading of a
    wrong form fails."""
    versions = []
    section = None
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("## "):
            assert line == "## [Unreleased]" or VERSION.fullmatch(line), \
                f"CHANGELOG.md:{number}: not '## [Unreleased]' or '## [X.Y.Z] - YYYY-MM-DD': {line}"
            versions.append((line, {}))
            section = None
        elif line.startswith("### "):
            assert versions, f"CHANGELOG.md:{number}: a section before any version: {line}"
            name = line[4:]
            assert name in SECTIONS, f"CHANGELOG.md:{number}: {name!r} is none of {SECTIONS}"
            sections = versions[-1][1]
            assert name not in sections, f"CHANGELOG.md:{number}: {name} twice in one version"
            section = sections[name] = []
        elif line.startswith("#") and not line.startswith("# "):
            raise AssertionError(f"CHANGELOG.md:{number}: a heading of another level: {line}")
        elif section is not None and line.strip():
            section.append(line)
    return versions


def test_the_changelog_keeps_the_form_of_keep_a_changelog():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog\n")
    versions = changelog_versions(text)
    headings = [heading for heading, _ in versions]
    assert headings and headings[0] == "## [Unreleased]", headings
    assert headings.count("## [Unreleased]") == 1
    released = [VERSION.fullmatch(heading).groups() for heading in headings[1:]]
    numbers = [tuple(int(part) for part in groups[:3]) for groups in released]
    dates = [datetime.date.fromisoformat(groups[3]) for groups in released]
    assert numbers == sorted(set(numbers), reverse=True), "versions newest first, once each"
    assert dates == sorted(dates, reverse=True), "dates newest first"
    for heading, sections in versions:
        for name, lines in sections.items():
            assert any(line.startswith("- ") for line in lines), f"{heading}: {name} is empty"
    version = pyproject()["version"]
    assert f"## [{version}] - " in text, f"pyproject.toml's version {version} has no entry"


def requirement_key(text):
    """A requirement as comparable text: the name as PEP 503 normalizes it,
    its extras sorted, its version specifiers without spaces."""
    found = re.fullmatch(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?\s*([^;#]*?)\s*",
                         text)
    assert found, f"not a requirement this test reads: {text!r}"
    name, extras, specifiers = found.groups()
    name = re.sub(r"[-_.]+", "-", name).lower()
    extras = ",".join(sorted(part.strip().lower() for part in (extras or "").split(",")
                             if part.strip()))
    return name, extras, specifiers.replace(" ", "")


def test_the_docs_requirements_are_the_docs_extra():
    extra = pyproject()["optional-dependencies"]["docs"]
    lines = (ROOT / "docs" / "requirements.txt").read_text().splitlines()
    listed = [line.split("#")[0].strip() for line in lines]
    listed = [line for line in listed if line]
    assert not [line for line in listed if line.startswith("-")], \
        "docs/requirements.txt installs the docs' packages alone (no options, no '-e .')"
    assert sorted(map(requirement_key, listed)) == sorted(map(requirement_key, extra))

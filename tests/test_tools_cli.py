"""Every command-line tool answers bad arguments with one line on stderr and
exit status 2: no traceback, no usage block, no hang, and no long work
first (each case would take minutes, or forever, if it were not refused
at once). Each runs as a real process, as a user would start it."""
import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT

START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR"
GAME = """[Event "t"]
[Result "1/2-1/2"]
[Termination "repetition"]

1. h2e2 h9g7 1/2-1/2
"""
MATCH = ["-engine", "cmd=a", "depth=1", "-engine", "cmd=b", "depth=1"]

# (tool module, arguments): {tmp} is a directory holding the files above.
CASES = [
    ("perft", ["startpos", "x"]),
    ("perft", ["startpos", "99999999999"]),
    ("perft", ["startpos", "4", "--bogus"]),
    ("bench", []),
    ("bench", ["perft", "--depth", "1", "--repeat", "1", "--fairy", "/nonexistent"]),
    ("bench", ["perft", "--depth", "1", "--repeat", "0"]),
    ("bench", ["nodes", "--depth", "-1", "--positions", "1"]),
    ("bench", ["nodes", "--depth", "1", "--positions", "-3"]),
    ("bench", ["nodes", "--hash", "x"]),
    ("bench", ["ebf", "--depth", "2", "--low", "2"]),
    ("bench", ["latency", "--rounds", "0"]),
    ("compare", ["--games", "queens", "--max-depth", "1", "--csv", "/nonexistent/x.csv"]),
    ("compare", ["--games", "queens", "--max-depth", "1", "--plot", "/nonexistent/x.png"]),
    ("compare", ["--games", "queens", "--max-depth", "1", "--csv", "{tmp}"]),
    ("compare", ["--games", "queens", "--max-depth", "1", "--budget", "nan"]),
    ("compare", ["--games", ","]),
    ("match.sprt_runner", ["--change", "x", "--test", "nonexistentrev"]),
    ("match.sprt_runner", ["--change", "x", "--test", "HEAD", "--base", "HEAD", "--tc", "garbage"]),
    ("match.sprt_runner", ["--change", "x", "--test", "HEAD", "--base", "HEAD",
                     "--pgnout", "/nonexistent/x.pgn"]),
    ("match.sprt_runner", ["--change", "x", "--test", "HEAD", "--base", "HEAD", "--elo1", "-5"]),
    ("match.sprt_runner", ["--change", "x", "--test", "HEAD", "--base", "HEAD", "--resume"]),
    ("match.sprt_runner", ["--change", "x", "--test", "HEAD", "--base", "HEAD", "--resume",
                           "--pgnout", "{tmp}/g.pgn"]),
    ("match.openings", ["-o", "/nonexistent/x.epd", "--count", "1", "--depth", "1"]),
    ("match.openings", ["-o", "{tmp}/o.epd", "--plies", "x"]),
    ("match.openings", ["-o", "{tmp}/o.epd", "--plies", "0", "--count", "2", "--depth", "1"]),
    ("training.positions", ["{tmp}/missing.pgn", "-o", "{tmp}/out.txt"]),
    ("training.positions", ["{tmp}/games.pgn", "-o", "/nonexistent/x.txt"]),
    ("training.positions", ["{tmp}/games.pgn", "-o", "{tmp}"]),
    ("training.positions", ["{tmp}/binary.pgn", "-o", "{tmp}/out.txt"]),
    ("training.positions", ["{tmp}", "-o", "{tmp}/out.txt"]),
    ("training.positions", ["{tmp}/games.pgn", "-o", "{tmp}/out.txt", "--limit", "-1"]),
    ("training.tune", ["{tmp}/missing.txt"]),
    ("training.tune", ["{tmp}/malformed.txt"]),
    ("training.tune", ["{tmp}/positions.txt", "-o", "/nonexistent/w.json"]),
    ("training.tune", ["{tmp}/positions.txt", "--l2", "nan"]),
    ("training.tune", ["{tmp}/positions.txt", "--anchor", "R=900", "--freeze", "tempo"]),
    ("training.datagen", ["--openings", "{tmp}/o.epd", "--pgnout", "{tmp}/g.pgn", "--games", "0"]),
    ("training.datagen", ["--openings", "{tmp}/o.epd", "--pgnout", "{tmp}/g.pgn",
                 "--", "-cluster", "bogus"]),
    ("training.datagen", ["--openings", "{tmp}/missing.epd", "--pgnout", "{tmp}/g.pgn"]),
    ("training.datagen", ["--out", "{tmp}/games.pgn", "--positions", "10"]),
    ("training.datagen", ["--out", "/nonexistent/x.bin"]),
    ("training.datagen", ["--out", "{tmp}/p.bin", "--random-plies", "3"]),
    ("training.datagen", ["--out", "{tmp}/p.bin", "--positions", "0"]),
    ("training.datagen", ["--out", "{tmp}/p.bin", "--openings", "{tmp}/games.pgn"]),
    ("training.train", ["{tmp}/missing.bin", "-o", "{tmp}/n.nnue"]),
    ("training.train", ["{tmp}/games.pgn", "-o", "{tmp}/n.nnue"]),
    ("training.train", ["{tmp}/games.pgn", "-o", "/nonexistent/n.nnue"]),
    ("training.train", ["{tmp}/games.pgn", "-o", "{tmp}/n.nnue", "--hidden", "100"]),
    ("training.train", ["{tmp}/games.pgn", "-o", "{tmp}/n.nnue", "--epochs", "0"]),
    ("match.cluster_bench", ["overhead", "--cluster", "bogus", "--tasks", "1"]),
    ("match.cluster_bench", ["overhead", "--tasks", "0"]),
    ("match.cluster_bench", ["match", "--workers", "0"]),
    ("match.cluster_bench", ["match", "--", "-bogus"]),
    ("match.cli", [*MATCH, "-openings", "plies=x"]),
    ("match.cli", [*MATCH, "-cluster", "bogus"]),
    # The log opens first: it must be closed again (-W turns a leak into more stderr).
    ("match.cli", [*MATCH, "-openings", "plies=x", "-log", "{tmp}/m.log",
               "-pgnout", "/nonexistent/dir/x.pgn"]),
    ("match.cli", [*MATCH, "-log", "{tmp}/m.log", "-pgnout", "/nonexistent/dir/x.pgn"]),
    ("match.cli", [*MATCH, "-openings", "nonsense"]),
    ("book", ["build", "-o", "{tmp}/b.book"]),
    ("book", ["build", "{tmp}/missing.pgn", "-o", "{tmp}/b.book"]),
    ("book", ["build", "{tmp}/games.pgn", "-o", "/nonexistent/x.book"]),
    # Refused before any engine starts: an analysis would take minutes.
    ("book", ["build", "--analyse", "8", "-o", "/nonexistent/x.book"]),
    ("book", ["build", "--analyse", "2", "--depth", "0", "-o", "{tmp}/b.book"]),
    ("book", ["build", "--analyse", "2", "--margin", "-1", "-o", "{tmp}/b.book"]),
    ("book", ["probe", "--book", "{tmp}/games.pgn"]),
    ("book", ["probe", "--book", "{tmp}/missing.book"]),
    ("book", ["probe", "--moves", "z9z9"]),
    ("book", ["probe", "rnbakabnr/9/9 w"]),
    ("web", ["--port", "99999"]),
    ("web", ["--max-sessions", "0"]),
    ("web", ["--idle-timeout", "-1"]),
    ("web", ["--protocol", "xboard"]),
    ("levels", ["errors", "--elos", "700"]),
    ("levels", ["errors", "--positions", "0"]),
]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "games.pgn").write_text(GAME)
    (tmp_path / "binary.pgn").write_bytes(b"\xff\xfe[Event \x81]\n")
    (tmp_path / "malformed.txt").write_text(f"{START} w 2 -\n")
    (tmp_path / "positions.txt").write_text(f"{START} w 1 -\n{START} w 0 -\n{START} w 0.5 -\n")
    (tmp_path / "o.epd").write_text(f'{START} w - - id "o1";\n')
    return tmp_path


@pytest.mark.parametrize("tool, args", CASES, ids=[f"{t}:{' '.join(a)}" for t, a in CASES])
def test_bad_arguments_get_one_line_and_status_2(tool, args, files):
    argv = [a.format(tmp=files) for a in args]
    # A build would take minutes: none may start, and none in the real cache.
    env = {**os.environ, "TUONG_BUILDS": str(files / "builds")}
    proc = subprocess.run([sys.executable, "-W", "error::ResourceWarning",
                           "-m", f"tuong.tools.{tool}", *argv],
                          cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=30)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].strip(), proc.stderr
    assert proc.returncode == 2, proc.stderr
    assert not (files / "builds").exists()


@pytest.mark.parametrize("tool", ["perft", "bench", "compare", "match.sprt_runner",
                                  "match.openings", "training.positions", "training.tune",
                                  "training.datagen", "match.cluster_bench", "training.train",
                                  "book", "records", "egtb", "web"])
def test_help_is_still_the_full_help(tool):
    proc = subprocess.run([sys.executable, "-m", f"tuong.tools.{tool}", "--help"], cwd=ROOT,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0 and proc.stdout.startswith("usage:") and not proc.stderr


def test_sprt_runner_hands_resume_and_seed_to_the_match(tmp_path):
    """tuong-sprt --resume: the match counts the --pgnout games, with the
    openings in the first run's order (the same --seed, the same order)."""
    import argparse
    from tuong.tools.match import cli as match, sprt_runner
    args = argparse.Namespace(option=["Hash=32"], base_option=[], nodes=None, tc="4+0.04",
                              hash=16, games=10, concurrency=1, elo0=0.0, elo1=5.0,
                              alpha=0.05, beta=0.05, openings=None,
                              pgnout=str(tmp_path / "g.pgn"), seed=7, resume=False)
    first = match.parse_args(sprt_runner.match_argv(args, ROOT, ROOT))
    args.resume = True
    again = match.parse_args(sprt_runner.match_argv(args, ROOT, ROOT))
    assert not first.resume and again.resume and again.pgnout == args.pgnout
    assert first.openings == again.openings
    args.seed, args.resume = 8, False
    other = match.parse_args(sprt_runner.match_argv(args, ROOT, ROOT))
    assert not other.resume and other.openings != first.openings
    assert first.rules.resign_movecount is None and first.rules.draw_movenumber is None
    args.adjudicate = True
    judged = match.parse_args(sprt_runner.match_argv(args, ROOT, ROOT)).rules
    assert (judged.resign_movecount, judged.resign_score) == (5, 1000)
    assert (judged.draw_movenumber, judged.draw_movecount, judged.draw_score) == (60, 8, 10)


@pytest.mark.parametrize("extra, message", [
    (["--resume"], "--resume needs --pgnout"),
    (["--resume", "--pgnout", "{tmp}/g.pgn"], "--resume needs the first run's --seed"),
])
def test_sprt_runner_says_what_a_resume_needs(extra, message, tmp_path, capsys):
    from tuong.tools.match import sprt_runner
    with pytest.raises(SystemExit) as exit:
        sprt_runner.main(["--change", "x", "--test", "HEAD", "--base", "HEAD", "--no-log",
                          *[a.format(tmp=tmp_path) for a in extra]])
    assert exit.value.code == 2 and message in capsys.readouterr().err


def test_sprt_runner_draws_and_prints_a_seed_for_games_kept_in_a_file(tmp_path, capsys,
                                                                      monkeypatch):
    """A run whose games go to --pgnout can always be resumed: without --seed
    one is drawn, printed, and orders the match's openings."""
    from tuong.tools.match import cli as match, sprt_runner

    class Started(Exception):
        pass

    def run(config):
        started.append(config)
        raise Started
    started = []
    monkeypatch.setattr(sprt_runner, "build", lambda rev: (ROOT, rev))
    monkeypatch.setattr(sprt_runner.match, "run", run)
    with pytest.raises(Started):
        sprt_runner.main(["--change", "x", "--test", "HEAD", "--base", "HEAD", "--no-log",
                          "--pgnout", str(tmp_path / "g.pgn")])
    printed = re.search(r"--seed (\d+) \(give it again with --resume\)", capsys.readouterr().out)
    assert printed and len(started) == 1
    again = match.parse_args(["-engine", "cmd=a", "-engine", "cmd=b", "-each", "tc=1+0.01",
                              "-openings", f"file={match.DEFAULT_OPENINGS}", "order=random",
                              "-seed", printed.group(1)])
    assert started[0].openings == again.openings


def test_sprt_runner_builds_the_checkout_it_runs_in(tmp_path, monkeypatch, capsys):
    """The revisions come from the checkout around the current directory
    (a plain install's module lives in site-packages, whose folder git does
    not track); outside any checkout it says so before anything else."""
    from tuong.tools.match import sprt_runner
    monkeypatch.chdir(ROOT / "engine")
    assert sprt_runner.find_repository() == ROOT
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sprt_runner, "__file__", str(tmp_path / "site-packages" / "x.py"))
    assert sprt_runner.find_repository() is None
    with pytest.raises(SystemExit) as exit:
        sprt_runner.main(["--change", "x", "--no-log"])
    assert exit.value.code == 2 and "inside a checkout of tuong" in capsys.readouterr().err


def test_bench_says_its_evaluation_and_a_missing_peer(monkeypatch, capsys):
    """tuong-bench measures the engine's evaluation (the shipped network, not
    a fresh process's hand-crafted one) and says so; without Fairy-Stockfish
    it says that tuong's figures come alone."""
    from tuong.engine import evalfile
    from tuong.tools import bench
    monkeypatch.setattr(bench, "find_fairy", lambda path=None: None)
    evalfile.load(bench.weights.DEFAULT_PATH)        # as if something left it hand-crafted
    try:
        assert bench.main(["ebf", "--depth", "3", "--low", "2"]) == 0
    finally:
        evalfile.load(None)
    out = capsys.readouterr().out
    assert "== evaluation: NNUE network default.nnue" in out
    assert "fairy-stockfish not found: tuong's figures alone" in out

"""The command line, as a user meets it (issue 54, items 20 and 21): a bad
argument is one line and exit status 2, found before any work starts (no
engine, no pool, no file left behind), never a traceback nor a run that
goes on wrong; `tuong --help` and `--version` answer and exit; help is
printed once, every option has some, and output cut short by its reader
(`| head`) ends quietly. Each command runs as a real process; none does
long work, since each is refused (or answers) before it would start."""
import argparse
import os
import random
import subprocess
import sys
from importlib import metadata

import pytest
from conftest import ROOT, need_module, random_board

GAME = """[Event "t"]
[Result "*"]

1. h2e2 h9g7 *
"""
MATCH = ["-engine", "cmd=a", "-engine", "cmd=b"]
TC_FORM = "is not a time control"


def run(args, *, module=None, command=None, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        cwd=ROOT):
    """A tool run as a process: `python -m tuong.MODULE ARGS`, or COMMAND + ARGS."""
    argv = command if command is not None else [sys.executable, "-W", "error::ResourceWarning",
                                                "-m", f"tuong.{module}"]
    return subprocess.run([*argv, *args], cwd=cwd, stdin=stdin, stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=60)


def refused(proc, *words):
    """One line on stderr naming `words`, exit status 2, no traceback."""
    assert "Traceback" not in (proc.stdout or "") + proc.stderr, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].strip(), proc.stderr
    assert proc.returncode == 2, proc.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "game.pgn").write_text(GAME)
    (tmp_path / "tables").mkdir()
    (tmp_path / "not-a-network.nnue").write_text("hello\n")
    return tmp_path


# -- item 20: one line and exit 2 -----------------------------------------------------

def test_pgn_convert_into_a_missing_folder(files):
    proc = run(["convert", str(files / "game.pgn"), "-o", str(files / "none" / "out.pgn")],
               module="tools.records")
    refused(proc, "-o", "no folder")
    assert not (files / "none").exists()


def test_annotate_into_a_missing_folder_is_refused_before_the_engine_starts(files):
    """The engine here would leave a mark: the refusal comes first."""
    mark = files / "engine-started"
    engine = f"{sys.executable} -c \"open({str(mark)!r}, 'w')\""
    proc = run([str(files / "game.pgn"), "-o", str(files / "none" / "out.pgn"),
                "--engine", engine], module="tools.records.annotate")
    refused(proc, "-o", "no folder")
    assert not mark.exists()


@pytest.mark.parametrize("command", ["verify", "play"])
def test_egtb_refuses_a_name_that_is_no_endgame(files, command):
    args = [command, "--tb-path", str(files / "tables"), "foo"]
    if command == "play":
        args += ["--opponent", "nothing"]
    refused(run(args, module="tools.egtb"), "not an endgame name: 'foo'")


def test_egtb_play_refuses_a_bad_time_control_before_reading_tables(files):
    proc = run(["play", "--tb-path", str(files / "missing"), "--opponent", "x", "--tc", "abc"],
               module="tools.egtb")
    refused(proc, TC_FORM)


@pytest.mark.parametrize("name, content", [("not-a-network.nnue", None),
                                           ("cut.nnue", "cut"), ("empty.json", b"{}")])
def test_datagen_refuses_an_eval_file_that_is_no_evaluation_and_leaves_no_file(files, name,
                                                                                 content):
    path = files / name
    if content == "cut":                 # a network cut short (a download stopped)
        path.write_bytes((ROOT / "tests" / "data" / "gen2.nnue").read_bytes()[:3000])
    elif content is not None:
        path.write_bytes(content)
    out = files / "p.bin"
    proc = run(["--out", str(out), "--positions", "10", "--eval-file", str(path)],
               module="tools.training.datagen")
    refused(proc, "--eval-file")
    assert sorted(p.name for p in files.iterdir() if p.name.startswith("p.bin")) == []


@pytest.mark.parametrize("setting, words", [
    ("nodes=0", ["nodes=0", "from 1"]),
    ("depth=0", ["depth=0", "from 1"]),
    ("depth=-2", ["depth=-2"]),
    ("nodes=1.5", ["nodes=1.5"]),
    ("tc=inf+0", ["tc=inf+0", "finite"]),
    ("tc=nan", ["tc=nan", "finite"]),
    ("tc=10+inf", ["tc=10+inf"]),
    ("tc=0+0", ["tc=0+0", "above 0"]),
    ("tc=0:00+1", ["above 0"]),
    ("tc=abc", [TC_FORM, "10+0.1"]),
    ("tc=1:xx+1", [TC_FORM]),
    ("tc=10+-1", ["tc=10+-1"]),
    ("tc=1e300", ["tc=1e300", "at most"]),
    ("st=0", ["st=0"]),
    ("st=nan", ["st=nan"]),
    ("timemargin=-1", ["timemargin=-1"]),
    ("stall=0", ["stall=0"]),
])
def test_match_refuses_a_limit_no_game_is_played_under(setting, words):
    """Before: nodes=0 played 60 s a game and forfeited it, inf and nan
    raised OverflowError, tc=abc said "could not convert string to float"."""
    refused(run([*MATCH, "-each", setting], module="tools.match.cli"), *words)


@pytest.mark.parametrize("option, value", [("-maxplies", "-5"), ("-maxplies", "0"),
                                           ("-nocapture", "0"), ("-maxplies", "x")])
def test_match_refuses_a_move_limit_below_one(option, value):
    refused(run([*MATCH, "-each", "depth=1", option, value], module="tools.match.cli"),
            option, repr(value))


@pytest.mark.parametrize("setting", [["-resign", "movecount=0", "score=500"],
                                     ["-draw", "movenumber=30", "movecount=-1", "score=5"]])
def test_match_refuses_an_adjudication_that_judges_at_once(setting):
    refused(run([*MATCH, "-each", "depth=1", *setting], module="tools.match.cli"), "at least")


def test_match_keeps_the_time_controls_it_took():
    """What was accepted still is (the engines cannot start: exit 1, not 2)."""
    for setting in ("tc=10+0.1", "tc=1:30+1", "tc=1", "tc=0.5+0", "st=0.5", "depth=7",
                    "nodes=1000", "timemargin=0", "stall=5"):
        proc = run([*MATCH, "-each", "depth=1", setting, "-games", "2", "-openings", "none"],
                   module="tools.match.cli")
        assert proc.returncode == 1 and "cannot start" in proc.stderr, (setting, proc.stderr)


def test_train_refuses_a_resume_with_fewer_epochs_than_the_checkpoint_holds(tmp_path):
    """Before: it trained nothing and wrote the checkpoint's network, exit 0."""
    need_module("numpy")
    need_module("scipy")
    from tuong.tools.training import dataset, train
    rng = random.Random(5)
    data = tmp_path / "p.bin"
    boards = [random_board(rng, rng.randint(0, 40)) for _ in range(300)]
    data.write_bytes(dataset.header() + b"".join(
        dataset.pack(dataset.squares_of_fen(b.fen()), rng.randint(-300, 300),
                     rng.choice((-1, 0, 1)), 0 if b.turn == "w" else 1) for b in boards))
    net = tmp_path / "n.nnue"
    common = [str(data), "-o", str(net), "--hidden", "16", "--batch", "64", "--scale", "400"]
    assert train.main(common + ["--epochs", "3"]) == 0
    net.unlink()
    proc = run([*common, "--epochs", "2", "--resume"], module="tools.training.train")
    refused(proc, "--resume", "3 epochs", "--epochs 3")
    assert not net.exists()
    proc = run([str(data), "-o", str(tmp_path / "other.nnue"), "--resume"],
               module="tools.training.train")
    refused(proc, "--resume: no checkpoint")


def _closed_pipe_run(command):
    """Run with stdout a pipe whose reader is gone (`... | head -0`)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(command, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write)


@pytest.mark.parametrize("command", [["tools.match.cli", "-help"], ["protocol", "--help"],
                                     ["protocol", "--version"]])
def test_help_into_a_closed_pipe_ends_quietly(command):
    """`tuong-match -help | head -3` raised BrokenPipeError."""
    proc = _closed_pipe_run([sys.executable, "-m", f"tuong.{command[0]}", *command[1:]])
    assert proc.stderr == "" and proc.returncode == 1, proc.stderr


def test_one_game_is_one_game(files):
    proc = run(["convert", str(files / "game.pgn")], module="tools.records")
    assert proc.returncode == 0 and "[Event" in proc.stdout
    assert "1 game written, 0 left out" in proc.stderr, proc.stderr


# -- item 21: help, version, one name an option ----------------------------------------

def test_tuong_help_and_version_answer_without_starting_the_engine():
    """Before, both started the engine (and waited for commands)."""
    proc = run(["--help"], module="protocol", stdin=subprocess.PIPE)
    assert proc.returncode == 0 and not proc.stderr
    assert proc.stdout.startswith("usage: tuong") and "--version" in proc.stdout
    assert "uci" in proc.stdout and "id name" not in proc.stdout
    proc = run(["--version"], module="protocol", stdin=subprocess.PIPE)
    assert proc.returncode == 0 and proc.stdout == f"tuong {metadata.version('tuong')}\n"


@pytest.mark.parametrize("args", [[], ["-xboard"], ["--some-gui-flag", "value"]])
def test_tuong_still_speaks_uci_with_or_without_a_guis_arguments(args):
    proc = subprocess.run([sys.executable, "-m", "tuong.protocol", *args], cwd=ROOT,
                          input="uci\nisready\nquit\n", capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0 and "uciok" in proc.stdout and "readyok" in proc.stdout


def test_compare_prints_its_usage_once():
    proc = run(["--help"], module="tools.compare")
    assert proc.returncode == 0 and proc.stdout.startswith("usage: tuong-compare")
    assert proc.stdout.count("tuong-compare [") == 1, proc.stdout


def test_datagen_has_one_name_for_the_ply_limit_and_keeps_the_old_one(files):
    (files / "o.epd").write_text("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR"
                                 " w - - ;\n")
    common = ["--pgnout", str(files / "g.pgn"), "--openings", str(files / "o.epd"),
              "--dry-run"]
    for name in ("--max-plies", "--maxplies"):
        proc = run([*common, name, "50"], module="tools.training.datagen")
        assert proc.returncode == 0 and " -maxplies 50 " in proc.stdout, (name, proc.stderr)
    proc = run(common, module="tools.training.datagen")
    assert " -maxplies 300 " in proc.stdout
    proc = run(["--help"], module="tools.training.datagen")
    assert "--max-plies N" in proc.stdout and "--maxplies" not in proc.stdout
    refused(run(["--out", str(files / "p.bin"), "--max-plies", "5"],
                module="tools.training.datagen"), "--max-plies", "at least 20")


@pytest.mark.parametrize("args, option", [
    (["--pgnout", "{tmp}/g.pgn", "--openings", "{tmp}/o.epd", "--eval-file", "{tmp}/x.nnue"],
     "--eval-file"),
    (["--pgnout", "{tmp}/g.pgn", "--openings", "{tmp}/o.epd", "--positions", "5"],
     "--positions"),
    (["--out", "{tmp}/p.bin", "--games", "3"], "--games"),
    (["--out", "{tmp}/p.bin", "--option", "Hash=4"], "--option"),
])
def test_datagen_refuses_an_option_the_route_would_ignore(files, args, option):
    """--eval-file with --pgnout played with the default network, silently."""
    proc = run([a.format(tmp=files) for a in args], module="tools.training.datagen")
    refused(proc, option, "is for")


class _Parsed(Exception):
    """Raised in place of parsing: carries the parser to look at."""

    def __init__(self, parser):
        super().__init__()
        self.parser = parser


def _parsers(main, argv, monkeypatch):
    """The argument parser main(argv) builds, caught before it parses."""
    def catch(self, *args, **kwargs):
        raise _Parsed(self)
    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", catch)
    monkeypatch.setattr(argparse.ArgumentParser, "parse_known_args", catch)
    with pytest.raises(_Parsed) as caught:
        main(argv)
    return caught.value.parser


def _without_help(parser, where):
    missing = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                missing += _without_help(sub, f"{where} {name}")
            continue
        if action.help is None:
            missing.append(f"{where} {'/'.join(action.option_strings) or action.dest}")
    return missing


def test_every_option_has_help(monkeypatch):
    from tuong.protocol import __main__ as engine
    from tuong.tools import compare, egtb, records
    from tuong.tools.records import annotate
    from tuong.tools.training import datagen, train
    missing = _without_help(engine.parser(), "tuong")
    for prog, main in (("tuong-pgn", records.main), ("tuong-annotate", annotate.main),
                       ("tuong-egtb", egtb.main), ("tuong-datagen", datagen.main),
                       ("tuong-train", train.main), ("tuong-compare", compare.main)):
        missing += _without_help(_parsers(main, [], monkeypatch), prog)
    assert missing == []

"""tuong-sprt: test a change the way it must land -- an SPRT in tuong-match
between two builds -- and log the result, accepted or not.

    tuong-sprt --change "what changed" [--test REV] [--base REV]
               [--tc 4+0.04 | --nodes N] [--elo0 0] [--elo1 5] [--alpha 0.05] [--beta 0.05]
               [--games 4000] [--concurrency 2] [--openings FILE] [--hash 16]
               [--option NAME=VALUE]... [--base-option NAME=VALUE]...
               [--pgnout FILE [--seed N] [--resume]] [--log FILE] [--no-log]

It runs in a checkout of tuong (the one the current directory is in, else
the one it is installed from). Each revision (a commit, branch or tag; `.`
for the working tree as it is now) is exported and built once into a cache
(~/.cache/tuong-builds, or $TUONG_BUILDS), so the two engines run side by
side as `python -m tuong.protocol` from their own directories. The match
uses tuong-match's SPRT (pentanomial by default) and the default book unless
--openings says otherwise; it stops when the SPRT decides (or after
--games). A row goes into the testing log: date, change, time control,
games, W/D/L (from the test build's side), LLR and bounds, Elo with its
error, verdict, and the two revisions.

A run that stopped (Ctrl-C, SIGTERM, the end of a session) goes on with the
same command and --resume: the games in its --pgnout count and are not played
again. The openings come in a random order, so a run meant to be resumed
names its --seed (the same one again on --resume; with --pgnout and no --seed,
one is drawn and printed), and its revisions should be commits: `.` is the
working tree as it is when the command starts.
"""
import argparse
import datetime
import hashlib
import math
import os
import pathlib
import random
import shutil
import subprocess
import sys
import tempfile

from tuong.tools.match import cli as match
from tuong.tools.cli import ArgumentParser, check_output, integer
from tuong.tools.match.referee import TimeControl
from tuong.tools.match.runtime import Fatal
from tuong.tools.match.sprt import elo_estimate
from tuong.tools.match.stats import final_report

ALIAS = ".tuong-path"              # in a build: tuong -> .., so the build imports as tuong


def find_repository():
    """The checkout of tuong whose revisions are built: the one the current
    directory is in, else the one this module runs from (an editable
    install, or a plain one into a virtual environment inside a checkout);
    None if neither is one."""
    for start in (pathlib.Path.cwd(), pathlib.Path(__file__).resolve().parent):
        try:
            top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=start, check=True,
                                 capture_output=True, text=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            continue
        top = pathlib.Path(top)
        if (top / "setup.py").is_file() and (top / "engine" / "search.pyx").is_file():
            return top
    return None


# Where the revisions come from: main() sets the checkout it runs in
# (find_repository); importing the module runs no git.
ROOT = pathlib.Path(__file__).resolve().parents[2]
LOG_HEADER = """\
| date | change | tc | games | W / D / L | LLR (bounds) | Elo | verdict | test | base |
|---|---|---|---|---|---|---|---|---|---|
"""


def cache_dir():
    return pathlib.Path(os.environ.get("TUONG_BUILDS",
                                       pathlib.Path.home() / ".cache" / "tuong-builds"))


def _git(*args):
    try:
        return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True,
                              text=True).stdout.strip()
    except subprocess.CalledProcessError as e:
        raise SystemExit(f"tuong-sprt: git {' '.join(args)} in {ROOT}: {e.stderr.strip()}") \
            from None


def build(rev):
    """A built copy of revision `rev` (or of the working tree for '.');
    returns (directory, label)."""
    if rev == ".":
        # The working tree, as is: keyed by the content of what is tracked.
        files = _git("ls-files", "-co", "--exclude-standard").splitlines()
        digest = hashlib.sha1()
        for name in sorted(files):
            path = ROOT / name
            if path.is_file():
                digest.update(name.encode() + b"\0" + path.read_bytes())
        key, label = "tree-" + digest.hexdigest()[:12], _git("rev-parse", "--short", "HEAD") + "+"
    else:
        key = label = _git("rev-parse", "--short", rev)
    target = cache_dir() / key
    if (target / ".built").exists():
        return target, label
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    if rev == ".":
        for name in files:
            source = ROOT / name
            if source.is_file():
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target / name)
    else:
        with tempfile.TemporaryFile() as archive:
            done = subprocess.run(["git", "archive", rev], cwd=ROOT, stdout=archive,
                                  stderr=subprocess.PIPE, text=True)
            if done.returncode != 0:
                raise SystemExit(f"tuong-sprt: git archive {rev} in {ROOT}: "
                                 f"{done.stderr.strip()}")
            archive.seek(0)
            subprocess.run(["tar", "-x", "-C", str(target)], stdin=archive, check=True)
    result = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=target,
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"tuong-sprt: building {rev} failed (is Cython installed? "
                         f"pip install 'tuong[tune]'):\n{result.stderr[-2000:]}")
    make_importable(target)
    (target / ".built").write_text(label)
    return target, label


def log_row(path, change, tc, stats, sprt, decision, test_label, base_label):
    w, d, l = stats.head_to_head()
    elo, error = elo_estimate(w, d, l)
    verdict = {"H1": "accepted", "H0": "rejected"}.get(decision, "no decision")
    row = (f"| {datetime.date.today()} | {change} | {tc} | {w + d + l} | {w} / {d} / {l} | "
           f"{stats.sprt_llr():.2f} ({sprt.lower:.2f}, {sprt.upper:.2f}) [{sprt.elo0:g}, "
           f"{sprt.elo1:g}] | {elo:+.1f} +/- {error:.1f} | {verdict} | {test_label} | "
           f"{base_label} |\n")
    path = pathlib.Path(path)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("# Testing log\n\nEvery SPRT of a change to the search or the evaluation, "
                        "accepted or not (written by `tuong-sprt`).\n\n" + LOG_HEADER)
    with open(path, "a", encoding="utf-8") as f:
        f.write(row)
    return row


def _time_control(text):
    """--tc: BASE+INC in seconds (BASE may be M:SS), as tuong-match reads it."""
    try:
        tc = TimeControl.parse({"tc": text})
        good = tc.base > 0 and tc.inc >= 0 and math.isfinite(tc.base + tc.inc)
    except ValueError:
        good = False
    if not good:
        raise argparse.ArgumentTypeError(f"expected BASE+INC in seconds, e.g. 4+0.04, "
                                         f"got {text!r}")
    return text


def _is_commit(rev):
    if rev.startswith("-"):                  # an option to git, not a revision
        return False
    try:
        return subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
                              cwd=ROOT, capture_output=True).returncode == 0
    except OSError:                          # no git
        return False


def engine_command(build_dir):
    """How to start a built revision's engine. It is not installed: one from
    before the `tuong` namespace runs as `python -m protocol` from its
    directory; a later one needs that directory importable as the package
    `tuong`, which a symlink inside it gives (.tuong-path/tuong -> ..)."""
    build_dir = pathlib.Path(build_dir)
    if "tuong.engine" not in (build_dir / "setup.py").read_text():
        return f"{sys.executable} -m protocol"
    return f"env PYTHONPATH={build_dir / ALIAS} {sys.executable} -m tuong.protocol"


def make_importable(build_dir):
    """The symlink engine_command relies on (made once the build is done)."""
    link = build_dir / ALIAS / "tuong"
    if not link.is_symlink():
        link.parent.mkdir(exist_ok=True)
        link.symlink_to("..")


# --adjudicate: the network SPRTs' settings (networks/sprt-network.sh). A
# game both engines score as lost by 10 pawns for 5 moves is resigned, and
# one they score within 0.1 pawn for 8 moves after move 60 is drawn.
ADJUDICATION = ["-resign", "movecount=5", "score=1000",
                "-draw", "movenumber=60", "movecount=8", "score=10"]


def match_argv(args, test_dir, base_dir):
    """tuong-match's arguments for the two builds."""
    argv = ["-engine", "name=test", f"cmd={engine_command(test_dir)}", f"dir={test_dir}",
            *[f"option.{o}" for o in args.option],
            "-engine", "name=base", f"cmd={engine_command(base_dir)}", f"dir={base_dir}",
            *[f"option.{o}" for o in args.base_option],
            "-each", f"nodes={args.nodes}" if args.nodes else f"tc={args.tc}",
            f"option.Hash={args.hash}",
            "-games", str(args.games), "-concurrency", str(args.concurrency),
            "-sprt", f"elo0={args.elo0}", f"elo1={args.elo1}", f"alpha={args.alpha}",
            f"beta={args.beta}",
            "-openings", f"file={args.openings or match.DEFAULT_OPENINGS}", "order=random"]
    if getattr(args, "adjudicate", False):
        argv += ADJUDICATION
    if args.seed is not None:
        argv += ["-seed", str(args.seed)]
    if args.pgnout:
        argv += ["-pgnout", args.pgnout]
    if args.resume:
        argv += ["-resume"]
    return argv


def main(argv=None):
    parser = ArgumentParser(prog="tuong-sprt", description=__doc__.split("\n\n")[0])
    parser.add_argument("--change", required=True, help="what the test build changes")
    parser.add_argument("--test", default=".",
                        help="revision under test (default: the working tree)")
    parser.add_argument("--base", default="main", help="revision to beat (default: main)")
    parser.add_argument("--tc", type=_time_control, default="4+0.04",
                        help="time control (default 4+0.04)")
    parser.add_argument("--nodes", type=integer(1),
                        help="a fixed node budget per move instead of a clock (for changes "
                             "that leave both the time per node and what a node is alone, "
                             "such as move ordering: faster, and blind to the machine's "
                             "load; not for pruning, whose skipped moves are not nodes, so "
                             "the same budget buys more depth)")
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=5.0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--games", type=integer(1), default=4000,
                        help="stop after this many games")
    parser.add_argument("--concurrency", type=integer(1), default=2)
    parser.add_argument("--openings", help="opening book (default: tuong-match's)")
    parser.add_argument("--hash", type=integer(1, 4096), default=16,
                        help="Hash MB of both engines")
    parser.add_argument("--option", action="append", default=[],
                        help="NAME=VALUE for the test build (repeatable)")
    parser.add_argument("--base-option", action="append", default=[],
                        help="NAME=VALUE for the base build (repeatable)")
    parser.add_argument("--adjudicate", action="store_true",
                        help="resign games both engines score 1000 cp lost for 5 moves, draw "
                             "those within 10 cp for 8 moves after move 60 (faster)")
    parser.add_argument("--pgnout", help="write the games here too")
    parser.add_argument("--seed", type=int,
                        help="the openings' random order (random unless given, and "
                             "printed with --pgnout; --resume needs the first run's)")
    parser.add_argument("--resume", action="store_true",
                        help="go on with a run that stopped: the games in --pgnout count "
                             "and are not played again")
    parser.add_argument("--log", help="the testing log to append to "
                                      "(default: docs/testing.md of the checkout)")
    parser.add_argument("--no-log", action="store_true", help="do not write the log")
    args = parser.parse_args(argv)
    global ROOT
    root = find_repository()
    if root is None:
        parser.error("run it inside a checkout of tuong (git clone ...): it builds and "
                     "compares revisions of one")
    ROOT = root
    if args.log is None:
        args.log = str(ROOT / "docs" / "testing.md")

    # Everything is checked before the builds, which take minutes.
    if args.resume and not args.pgnout:
        parser.error("--resume needs --pgnout: the games to go on from")
    if args.resume and args.seed is None:
        parser.error("--resume needs the first run's --seed (the openings' order)")
    for option, rev in (("--test", args.test), ("--base", args.base)):
        if not _is_commit("HEAD" if rev == "." else rev):
            parser.error(f"{option} {rev}: not a commit of the git repository at {ROOT}")
    try:
        match.parse_args(match_argv(args, ROOT, ROOT))
    except match.UsageError as e:
        parser.error(e)
    if args.pgnout:
        check_output(parser, args.pgnout, "--pgnout")
        if args.seed is None:
            # Games kept in a file can be resumed only in their openings' order.
            args.seed = random.randrange(2 ** 31)
            print(f"tuong-sprt: the openings' order is --seed {args.seed} "
                  "(give it again with --resume)", flush=True)
    if not args.no_log:
        try:
            pathlib.Path(args.log).parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            parser.error(f"--log {args.log}: {e.strerror or e}")
        check_output(parser, args.log, "--log")

    test_dir, test_label = build(args.test)
    base_dir, base_label = build(args.base)
    try:
        config = match.parse_args(match_argv(args, test_dir, base_dir))
        stats, decision, interrupted = match.run(config)
    except match.UsageError as e:
        parser.error(e)
    except Fatal as e:
        print(f"tuong-sprt: {e}", file=sys.stderr)
        return 1
    print(final_report(config, stats, decision))
    if not args.no_log and sum(stats.head_to_head()):
        limit = f"nodes {args.nodes}" if args.nodes else args.tc
        row = log_row(args.log, args.change, limit, stats, config.sprt, decision, test_label,
                      base_label)
        print(f"logged to {args.log}:\n{row}", end="")
    return 130 if interrupted else 0

if __name__ == "__main__":
    sys.exit(main())

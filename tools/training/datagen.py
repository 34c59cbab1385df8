"""tuong-datagen: training positions from self-play, in the process or through tuong-match.

    tuong-datagen --out FILE --positions N [--nodes 3000] [--random-plies 6,10]
                  [--openings EPD] [--concurrency 1 | --cluster ADDRESS] [--seed 1]
                  [--eval-file F] [--hash 16] [--max-plies 400]
    tuong-datagen --pgnout games.pgn --openings openings.epd --games 2000
                  [--nodes 5000 | --depth D] [--spread 0.25] [--concurrency 1]
                  [--seed 1] [--engine CMD] [--hash 16] [--option NAME=VALUE]...
                  [--resign 4,1000] [--draw 60,10,10] [--max-plies 300]
                  [--dry-run] [-- EXTRA tuong-match ARGUMENTS, e.g. -cluster ADDRESS]

With --out (for the network's trainer, tuong-train), the core's search
plays itself inside worker processes (--concurrency of them, or tasks on the
Dask cluster at --cluster that tuong-match -cluster uses) at --nodes nodes a
move, from the start position or the --openings after a few random plies,
and appends the quiet positions of every game (not in check, no winning
capture, the best move quiet, no mate score; none in a decided ending cut
short by adjudication) with the search's score and the game's result to
FILE, in the binary format of tools/training/dataset.py, until FILE holds
--positions. Run the same command again to go on: it counts what FILE
holds and plays new games (the seeds follow the count). A progress line
shows positions, positions an hour and the games' results.

With --pgnout (for tuong-tune), two copies of tuong play each other at a
fixed node count (or depth) through tuong-match, from the openings (EPD,
e.g. from tuong-openings) in random order (seeded), each opening with both
colours, --games games in all, --concurrency at once, every game appended
to --pgnout with the engines' scores. tuong-match plays the two games of an
opening with colours swapped; so that the second is not a replay of the
first, engine B searches (1 + --spread) times as many nodes as A (with
--depth, one ply more). Adjudication keeps games short: a loss when both
engines agree on 1000 cp for 4 moves each, a draw when both have said
within 10 cp for 10 moves from move 60 (tuong-positions leaves out the
last plies of adjudicated games). Arguments after `--` (and any this
command does not know) go to tuong-match as they are. The command it runs
is printed first, so a run can be repeated exactly.
"""
import argparse
import shlex
import shutil
import sys

from tuong.tools import doc_parser
from tuong.tools.match import cli as match
from tuong.tools.cli import (HIGHEST, check_cluster, check_input, check_output, integer,
                             quiet_broken_pipe, real)


def engine_command():
    """How to start tuong: the installed console script, else this
    Python's `-m tuong.protocol`."""
    return shutil.which("tuong") or f"{shlex.quote(sys.executable)} -m tuong.protocol"


def match_argv(args, extra=()):
    """tuong-match's arguments for a datagen run."""
    cmd = args.engine or engine_command()
    if args.depth:
        limits = (f"depth={args.depth}", f"depth={args.depth + 1}")
    else:
        limits = (f"nodes={args.nodes}", f"nodes={round(args.nodes * (1 + args.spread))}")
    argv = []
    for name, limit in zip(("tuong-a", "tuong-b"), limits):
        argv += ["-engine", f"name={name}", f"cmd={cmd}", limit]
    argv += ["-each", "proto=uci", f"option.Hash={args.hash}", "option.Threads=1"]
    argv += [f"option.{o}" for o in args.option]
    resign = args.resign.split(",")
    draw = args.draw.split(",")
    argv += ["-openings", f"file={args.openings}", "format=epd", "order=random",
             "-seed", str(args.seed), "-games", str(args.games),
             "-concurrency", str(args.concurrency), "-pgnout", args.pgnout,
             "-maxplies", str(args.max_plies), "-event", "tuong-datagen"]
    if args.resign != "off":
        argv += ["-resign", f"movecount={resign[0]}", f"score={resign[1]}"]
    if args.draw != "off":
        argv += ["-draw", f"movenumber={draw[0]}", f"movecount={draw[1]}", f"score={draw[2]}"]
    return argv + list(extra)


def _numbers(count):
    def parse(text):
        fields = text.split(",")
        if text != "off" and (len(fields) != count or not all(f.isdigit() for f in fields)):
            raise argparse.ArgumentTypeError(f"expected {count} comma-separated numbers or off")
        return text
    return parse


# Options of one route only, and their defaults: given to the other, each
# would be ignored without a word (a run with the wrong network, say).
OUT_ONLY: dict[str, object] = {"positions": 1_000_000, "random_plies": "6,10", "eval_file": "",
                               "cluster": None}
PGNOUT_ONLY: dict[str, object] = {"games": 1000, "spread": 0.25, "engine": None, "option": [],
                                  "resign": "4,1000", "draw": "60,10,10", "dry_run": False}
MAX_PLIES = {"out": 400, "pgnout": 300}       # --max-plies' default on each route


def make_parser():
    """tuong-datagen's options (each route's own are checked in main())."""
    parser = doc_parser("tuong-datagen", __doc__)
    parser.add_argument("--openings", metavar="EPD",
                        help="EPD openings (tuong-openings); --pgnout needs them")
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--out", metavar="FILE", help="positions file (binary) for tuong-train")
    target.add_argument("--pgnout", metavar="FILE", help="PGN file the games are appended to")
    parser.add_argument("--positions", type=integer(1), metavar="N",
                        help="with --out: positions the file should hold (default 1000000)")
    parser.add_argument("--random-plies", type=_numbers(2), metavar="LOW,HIGH",
                        help="with --out: random plies opening each game (default 6,10)")
    parser.add_argument("--eval-file", metavar="FILE",
                        help="with --out: the evaluation file (network or weights; "
                             "default: the shipped one)")
    parser.add_argument("--cluster", metavar="ADDRESS",
                        help="with --out: tcp://HOST:PORT of a Dask scheduler, "
                        "or local[:N] worker processes (pip install 'tuong[cluster]')")
    parser.add_argument("--max-plies", type=integer(1), metavar="N",
                        help="a game is drawn after N plies (default: 400 with --out, "
                             "at least 20; 300 with --pgnout)")
    # The name --pgnout's games had (tuong-match's -maxplies): old scripts still work.
    parser.add_argument("--maxplies", dest="max_plies", type=integer(1),
                        default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    parser.add_argument("--games", type=integer(1), metavar="N",
                        help="with --pgnout: games to play (default 1000)")
    limit = parser.add_mutually_exclusive_group()
    limit.add_argument("--nodes", type=integer(1), help="engine A's nodes a move "
                       "(default 5000; with --out 3000)")
    limit.add_argument("--depth", type=integer(1, 99),
                       help="with --pgnout: engine A's depth (B: one more)")
    parser.add_argument("--spread", type=real(0),
                        help="with --pgnout: engine B searches (1 + this) x A's nodes "
                             "(default 0.25)")
    parser.add_argument("--concurrency", type=integer(1), default=1,
                        help="games at once: worker processes, or tuong-match's "
                             "-concurrency (default 1)")
    parser.add_argument("--seed", type=int, default=1,
                        help="the games' seed, and the order of the openings (default 1)")
    parser.add_argument("--engine", metavar="CMD",
                        help="with --pgnout: command that starts tuong (default: tuong)")
    parser.add_argument("--hash", type=integer(1, 4096), default=16,
                        help="hash table megabytes per engine (default 16)")
    parser.add_argument("--option", action="append", metavar="NAME=VALUE",
                        help="with --pgnout: a UCI option for both engines, "
                             "e.g. EvalFile=/path/w.json")
    parser.add_argument("--resign", type=_numbers(2),
                        help="with --pgnout: MOVES,CP (or off): adjudicated loss "
                             "(default 4,1000)")
    parser.add_argument("--draw", type=_numbers(3),
                        help="with --pgnout: FROM_MOVE,MOVES,CP (or off): adjudicated draw "
                             "(default 60,10,10)")
    parser.add_argument("--dry-run", action="store_true", default=None,
                        help="with --pgnout: print the tuong-match command and stop")
    return parser


def _route_options(parser, args):
    """Refuse an option of the other route; fill in the defaults."""
    route, other, theirs = (("--out", "--pgnout", PGNOUT_ONLY) if args.out else
                            ("--pgnout", "--out", OUT_ONLY))
    given = [name for name in theirs if getattr(args, name) is not None]
    if given:
        parser.error(f"--{given[0].replace('_', '-')} is for {other} runs, "
                     f"not {route}")
    for name, default in {**OUT_ONLY, **PGNOUT_ONLY}.items():
        if getattr(args, name) is None:
            setattr(args, name, default)
    if args.max_plies is None:
        args.max_plies = MAX_PLIES["out" if args.out else "pgnout"]


@quiet_broken_pipe
def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    extra = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1:]
    parser = make_parser()
    args, unknown = parser.parse_known_args(argv)
    _route_options(parser, args)
    if args.out:
        if unknown or extra:
            parser.error(f"unknown arguments: {' '.join(unknown + extra)}")
        return selfplay_main(parser, args)
    if not args.openings:
        parser.error("--pgnout needs --openings")
    args.nodes = args.nodes or 5000
    if any("=" not in o for o in args.option):
        parser.error("--option needs NAME=VALUE")
    if round(args.nodes * (1 + args.spread)) > HIGHEST:
        parser.error(f"--nodes x (1 + --spread) must be at most {HIGHEST}")
    command = match_argv(args, unknown + extra)
    if not args.dry_run:
        # Files and the engine only for a real run: a dry run may be
        # preparing a command for another machine.
        check(parser, args, command)
    print("tuong-match " + " ".join(shlex.quote(a) for a in command), flush=True)
    if args.dry_run:
        return 0
    return match.main(command)


def selfplay_main(parser, args):
    """The in-process route (--out): fill the positions file."""
    from tuong.tools.training import dataset, selfplay
    if args.depth:
        parser.error("--out plays at a node budget: use --nodes")
    if args.max_plies < 20:
        parser.error(f"--max-plies {args.max_plies}: at least 20 with --out")
    low, high = map(int, args.random_plies.split(","))
    if low > high:
        parser.error("--random-plies LOW,HIGH needs LOW <= HIGH")
    openings = ()
    if args.openings:
        check_input(parser, args.openings, "--openings")
        openings = tuple(_epd_fens(parser, args.openings))
    check_output(parser, args.out, "--out")
    if args.cluster:
        check_cluster(parser, args.cluster, "--cluster")
    if args.eval_file:
        check_input(parser, args.eval_file, "--eval-file")
        check_eval_file(parser, args.eval_file)
    settings = selfplay.Settings(nodes=args.nodes or 3000, random_plies=(low, high),
                                 max_plies=args.max_plies, hash_mb=args.hash,
                                 eval_file=args.eval_file, openings=openings)
    try:
        out, have = dataset.open_for_append(args.out)
    except (OSError, dataset.DatasetError) as e:
        parser.error(f"--out {args.out}: {e}")
    with out:
        return selfplay.fill(out, have, args.positions, settings, args.seed,
                             args.concurrency, args.cluster)


def check_eval_file(parser, path):
    """Refuse, before the workers start and before --out is touched, a file
    the engine would not take as its evaluation (read as EvalFile reads it,
    not put in force here)."""
    from tuong.engine import network, weights
    try:
        if network.is_network_file(path):
            network.read(path)
        else:
            weights.read(path)
    except weights.NotJSONError:
        parser.error(f"--eval-file {path}: neither a network (.nnue) nor a weights file (JSON)")
    except (ValueError, OSError) as e:
        parser.error(f"--eval-file: {e}")


def _epd_fens(parser, path):
    from tuong.engine.board import Board
    fens = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            fields = line.split()
            if not fields or line.startswith("#"):
                continue
            fen = " ".join(fields[:2])
            try:
                Board(fen)
            except ValueError as e:
                parser.error(f"--openings {path}, line {number}: {e}")
            fens.append(fen)
    if not fens:
        parser.error(f"--openings {path}: no positions")
    return fens


def check(parser, args, command):
    """Fail now, not when tuong-match starts, on what it would refuse."""
    check_input(parser, args.openings, "--openings")
    check_output(parser, args.pgnout, "--pgnout")
    if args.engine:
        try:
            program = shlex.split(args.engine)[0]
        except (ValueError, IndexError):          # unbalanced quotes, or only blanks
            program = None
        if not (program and shutil.which(program)):
            parser.error(f"--engine {args.engine!r}: no such program")
    try:
        match.parse_args(command)                 # -cluster's address too
    except match.UsageError as e:
        parser.error(f"tuong-match: {str(e) or 'bad arguments'}")


if __name__ == "__main__":
    sys.exit(main())

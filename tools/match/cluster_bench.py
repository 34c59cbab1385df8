"""tuong-cluster-bench: what a Dask cluster costs tuong-match (needs tuong[cluster]).

    tuong-cluster-bench overhead [--tasks 2000] [--latency 200] [--cluster local:2]
                                 [--game LABEL=SECONDS ...]
        Stand-in games (a task that returns a 150-move Game at once) through
        the same ClusterPool as real games: the submit-to-result latency of
        one game at a time, and the cost per game when --tasks are queued at
        once. One scheduler keeps busy about (seconds per game / cost per
        game) workers; --game gives the game lengths to turn into worker
        counts (a worker's wall seconds per game: measure them with `match`).

    tuong-cluster-bench match [--games 40] [--workers 2] [--repeat 2]
                              [-- tuong-match options]
        The same match with -concurrency N and with -cluster local:N, run
        alternately (ABAB...): wall time, games per hour, wall seconds per
        game per worker, CPU seconds per game (all processes: a figure that
        other load on the machine disturbs less), terminations, and every
        move checked with pyffish when it is installed. The options after -- replace the default
        (tuong against tuong at tc=2+0.02).

    tuong-cluster-bench datagen [--positions 20000] [--nodes 3000] [--workers 1]
                                [--cluster local:N | tcp://HOST:PORT] [--repeat 2]
        tuong-datagen --out with --concurrency N and with --cluster, run
        alternately (ABAB...), the same seed: positions an hour per worker
        each way and the cluster's cost against the local run. --cluster
        names a running scheduler (with --workers workers) to measure real
        hosts; by default local:N.

Machines are noisy: the load average is printed beside every figure.
"""
import argparse
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tuong.tools.match import cli as match
from tuong.tools.records import pgn
from tuong.tools.cli import ArgumentParser, check_cluster, integer, real
from tuong.tools.match.referee import Game, MoveRecord
from tuong.tools.match.runtime import Fatal, schedule

ROOT = Path(__file__).resolve().parents[2]


def standin_task(run_id, specs, rules, job, log=False, lease=None):
    """A game that costs nothing to play: 150 moves with scores and times,
    about the size of a real result."""
    game = Game(specs[job.red].name, specs[job.black].name, job.opening[0],
                result="1/2-1/2", termination="move limit", reason="stand-in",
                time_controls=("stand-in", "stand-in"))
    game.moves = [MoveRecord("h2e2", cp=12, depth=9, time=0.1) for _ in range(150)]
    return game, []


def _load():
    return "load average %.2f %.2f %.2f" % os.getloadavg()


def _children_cpu():
    """CPU seconds of every finished child process and their reaped
    descendants (engines, cluster workers, the scheduler)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _tuong():
    return shutil.which("tuong") or f"{sys.executable} -m tuong.protocol"


def bench_overhead(args):
    from tuong.tools.match.cluster import ClusterPool

    tuong = _tuong()
    config = match.parse_args(["-engine", "name=a", f"cmd={tuong}", "-engine", "name=b",
                               f"cmd={tuong}", "-each", "depth=1",
                               "-games", str(max(args.tasks, args.latency)),
                               "-cluster", args.cluster])
    jobs = schedule(config)
    print(f"before: {_load()}")
    pool = ClusterPool(config, None, sys.stdout)
    pool.task = standin_task
    try:
        pool.connect()
        pool.check_workers()
        latencies = []
        for job in jobs[:args.latency]:
            start = time.perf_counter()
            pool.submit([job])
            for _ in pool.games():
                latencies.append(time.perf_counter() - start)
        # All at once (tuong-match keeps 2 per worker thread queued; here the
        # scheduler is to be saturated, as by a cluster of many workers).
        pool.window, pool.window_time = args.tasks, float("inf")
        scheduler_cpu = pool.client.run_on_scheduler(time.process_time)
        start = time.perf_counter()
        pool.submit(jobs[:args.tasks])
        done = sum(1 for _ in pool.games())
        elapsed = time.perf_counter() - start
        scheduler_cpu = pool.client.run_on_scheduler(time.process_time) - scheduler_cpu
        local = pool.cluster is not None
    finally:
        pool.close()
    per_game, cpu_per_game = elapsed / done, scheduler_cpu / done
    latencies.sort()
    print(f"after: {_load()}")
    print("one game at a time, submit -> result: "
          f"median {1000 * statistics.median(latencies):.1f} ms, "
          f"90% under {1000 * latencies[int(0.9 * len(latencies))]:.1f} ms "
          f"({len(latencies)} games)")
    print(f"{done} games queued at once: {elapsed:.2f} s, {done / elapsed:.0f} games/s, "
          f"{1000 * per_game:.2f} ms per game (wall, everything on this machine)")
    print(f"the scheduler's CPU: {1000 * cpu_per_game:.2f} ms per game" +
          (" (a local cluster: the client's share included)" if local else ""))
    for label, seconds in args.game:
        print(f"  {label}: {seconds:g} s per game per worker -> one scheduler keeps "
              f"{seconds / cpu_per_game:,.0f} workers busy at 100% of its CPU "
              f"({seconds / per_game:,.0f} at this run's wall ms per game)")
    return 0


DEFAULT_MATCH = ["-engine", "name=base", f"cmd={_tuong()}", "-engine", "name=dev",
                 f"cmd={_tuong()}", "-each", "tc=2+0.02", "option.Hash=16"]


def _check_pgn(path):
    """(games, terminations, moves checked by pyffish or None)."""
    games = pgn.read_games(Path(path).read_text())
    terminations = {}
    for tags, _, _ in games:
        terminations[tags["Termination"]] = terminations.get(tags["Termination"], 0) + 1
    try:
        import pyffish as sf
    except ImportError:
        return games, terminations, None
    checked = 0
    for tags, moves, _ in games:
        fen = tags.get("FEN", sf.start_fen("xiangqi"))
        played = []
        for move in moves:
            ranks1 = f"{move[0]}{int(move[1]) + 1}{move[2]}{int(move[3]) + 1}"
            if ranks1 not in sf.legal_moves("xiangqi", fen, played):
                raise SystemExit(f"{path}: illegal move {move} in game {tags.get('Round')}")
            played.append(ranks1)
            checked += 1
    return games, terminations, checked


def bench_match(args):
    options = args.options or DEFAULT_MATCH
    modes = {"threads": ["-concurrency", str(args.workers)],
             "cluster": ["-cluster", f"local:{args.workers}"]}
    rates = {mode: [] for mode in modes}
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.repeat):
            for mode, extra in modes.items():
                out = Path(tmp) / f"{mode}-{run}.pgn"
                argv = [sys.executable, "-m", "tuong.tools.match.cli", *options,
                        "-games", str(args.games), *extra, "-pgnout", str(out)]
                load = _load()
                start, cpu = time.perf_counter(), _children_cpu()
                proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
                elapsed, cpu = time.perf_counter() - start, _children_cpu() - cpu
                if proc.returncode != 0:
                    sys.stderr.write(proc.stdout[-2000:] + proc.stderr[-2000:])
                    return 1
                games, terminations, checked = _check_pgn(out)
                rate = 3600 * len(games) / elapsed
                rates[mode].append(rate)
                per_game = args.workers * elapsed / len(games)
                legal = f"{checked} moves legal (pyffish)" if checked is not None else \
                    "pyffish not installed: moves not replayed"
                print(f"{mode:8} {len(games)} games in {elapsed:6.1f} s: {rate:6.0f} games/h, "
                      f"{per_game:.2f} s per game per worker, {cpu / len(games):.2f} CPU s "
                      f"per game; {legal}; {terminations}; before: {load}", flush=True)
    threads, cluster = (statistics.median(rates[m]) for m in modes)
    print(f"median games/h: -concurrency {args.workers} {threads:.0f}, "
          f"-cluster local:{args.workers} {cluster:.0f} ({100 * (cluster / threads - 1):+.1f}%)")
    print(f"command: tuong-match {shlex.join(options)} -games {args.games} ...")
    return 0


def bench_datagen(args):
    cluster = args.cluster or f"local:{args.workers}"
    modes = {"local": ["--concurrency", str(args.workers)], "cluster": ["--cluster", cluster]}
    rates = {mode: [] for mode in modes}
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.repeat):
            for mode, extra in modes.items():
                out = Path(tmp) / f"{mode}-{run}.bin"
                argv = [sys.executable, "-m", "tuong.tools.training.datagen", "--out", str(out),
                        "--positions", str(args.positions), "--nodes", str(args.nodes),
                        "--seed", str(run + 1), *extra]
                load = _load()
                start = time.perf_counter()
                proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
                elapsed = time.perf_counter() - start
                if proc.returncode != 0:
                    sys.stderr.write(proc.stdout[-2000:] + proc.stderr[-2000:])
                    return 1
                positions = _count_positions(out)
                rate = 3600 * positions / elapsed / args.workers
                rates[mode].append(rate)
                print(f"{mode:8} {positions:,} positions in {elapsed:6.1f} s: "
                      f"{rate:,.0f} an hour per worker; before: {load}", flush=True)
    local, remote = (statistics.median(rates[m]) for m in modes)
    print(f"median positions an hour per worker: --concurrency {args.workers} {local:,.0f}, "
          f"--cluster {cluster} {remote:,.0f} ({100 * (remote / local - 1):+.1f}%)")
    return 0


def _count_positions(path):
    """The positions tuong-datagen wrote to `path`, counted by training's
    own reader in a child process, as the run itself was: the match sits
    below training (training's tools run matches) and imports none of it."""
    code = "import sys; from tuong.tools.training import dataset; print(dataset.count(sys.argv[1]))"
    proc = subprocess.run([sys.executable, "-c", code, str(path)], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    return int(proc.stdout)


def _game(text):
    label, _, seconds = text.partition("=")
    try:
        return label, real(0, strict=True)(seconds)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected LABEL=SECONDS, got {text!r}") from None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    options = []
    if "--" in argv:
        argv, options = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    parser = ArgumentParser(prog="tuong-cluster-bench", description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    overhead = sub.add_parser("overhead", help="scheduler cost per game, with stand-in games")
    overhead.add_argument("--tasks", type=integer(1), default=2000)
    overhead.add_argument("--latency", type=integer(1), default=200)
    overhead.add_argument("--cluster", default="local:2")
    overhead.add_argument("--game", type=_game, action="append", default=[],
                          help="LABEL=SECONDS: a worker's wall seconds per game")
    overhead.set_defaults(run=bench_overhead)
    play = sub.add_parser("match", help="-concurrency N against -cluster local:N, ABAB")
    play.add_argument("--games", type=integer(1), default=40)
    play.add_argument("--workers", type=integer(1), default=2)
    play.add_argument("--repeat", type=integer(1), default=2)
    play.set_defaults(run=bench_match)
    data = sub.add_parser("datagen", help="tuong-datagen locally against on a cluster, ABAB")
    data.add_argument("--positions", type=integer(100), default=20000)
    data.add_argument("--nodes", type=integer(1), default=3000)
    data.add_argument("--workers", type=integer(1), default=1)
    data.add_argument("--cluster", help="a running scheduler (default: local:WORKERS)")
    data.add_argument("--repeat", type=integer(1), default=2)
    data.set_defaults(run=bench_datagen)
    args = parser.parse_args(argv)
    args.options = options
    command = sub.choices[args.what]
    if args.what == "overhead" or (args.what == "datagen" and args.cluster):
        check_cluster(command, args.cluster, "--cluster")
    elif options:
        try:
            match.parse_args([*options, "-games", str(args.games)])
        except match.UsageError as e:
            command.error(f"tuong-match options: {str(e) or 'bad arguments'}")
    try:
        return args.run(args)
    except match.UsageError as e:                   # no Dask: found before any work
        command.error(e)
    except Fatal as e:                              # no scheduler at the address
        print(f"{command.prog}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

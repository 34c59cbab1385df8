"""tuong-bench: speed figures, always beside a peer measured in the same run.

    tuong-bench perft [--depth 5]        perft from the start vs Fairy-Stockfish
    tuong-bench search [--movetime 1000] [--depth 16] [--time-limit 5]
                                         nodes/s on bench.txt, time to depth
                                         and node counts vs the book, each
                                         beside Fairy-Stockfish
    tuong-bench mates [--nodes 100000] [--movetime MS]
                                         forced mates in 2-4 (tools/data/mates.epd)
                                         found at a node budget (or a time),
                                         beside Fairy-Stockfish at the same one
    tuong-bench latency [--rounds 20]    how fast the engine process answers
                                         isready and stop during go infinite,
                                         beside Fairy-Stockfish
    tuong-bench ebf [--depth 16]         effective branching factor over depths
                                         10-16 on bench.txt, beside Fairy-Stockfish
    tuong-bench nodes [--depth 9]        node counts to a fixed depth on bench.txt
                                         (no peer: a count is the same on any
                                         machine, so it is the search's
                                         signature; a change that only reshapes
                                         the code must leave it as it was)
    tuong-bench threads [--threads 2]    nodes/s and time to a fixed depth over
                                         bench.txt with 1 and N threads
    tuong-bench simd [--depth 11]        the network's loops on each instruction set
                                         the processor runs (portable, AVX2,
                                         AVX-512): the same searches to a fixed
                                         depth (the same nodes: the paths give
                                         the same numbers), their times, ABAB

Machines here are noisy, so every figure is reported as a ratio against
Fairy-Stockfish run moments earlier on the same machine.
"""
import shutil
import statistics
import subprocess
import sys
import time

from tuong.engine import evalfile, weights
from tuong.engine.board import START_FEN, Board
from tuong.engine.search import Searcher
from tuong.tools.bench_fsf import Fairy, check_fairy, fairy_perft
from tuong.tools.cli import ArgumentParser, integer, real

# The book's plain alpha-beta from the start position (evaluated nodes).
BOOK_NODES = {4: 150_480, 5: 5_574_794}

FAIRY_CANDIDATES = ["fairy-stockfish", "/usr/games/fairy-stockfish"]

# The engine's own limits: its deepest search (protocol/uci.py), its Hash and
# Threads options (protocol/options.py).
MAX_DEPTH, MAX_HASH, MAX_THREADS = 100, 4096, 256


def find_fairy(path=None):
    for candidate in ([path] if path else FAIRY_CANDIDATES):
        found = shutil.which(candidate)
        if found:
            return found
    return None


def fairy_or_say(path=None):
    """find_fairy, and a line saying so when there is none: tuong's figures
    come alone then, without the ratio the benchmark exists for."""
    found = find_fairy(path)
    if not found:
        print("fairy-stockfish not found: tuong's figures alone, no ratio "
              "(apt-get install fairy-stockfish)")
    return found


def bench_perft(args):
    board = Board()
    runs = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        nodes = board.perft(args.depth)
        runs.append(time.perf_counter() - start)
    ours = min(runs)
    print(f"tuong           perft({args.depth}) = {nodes}  best of {args.repeat}: "
          f"{ours:.3f} s  ({nodes / ours / 1e6:.1f} M nodes/s)")
    fairy = find_fairy(args.fairy)
    if not fairy:
        print("fairy-stockfish not found: no ratio (apt-get install fairy-stockfish)")
        return 0
    # The best of as many runs as ours: the ratio compares like with like.
    timed = [fairy_perft(fairy, args.depth) for _ in range(args.repeat)]
    theirs, their_nodes = min(t for t, _ in timed), timed[0][1]
    print(f"fairy-stockfish perft({args.depth}) = {their_nodes}  best of {args.repeat}: "
          f"{theirs:.3f} s  ({their_nodes / theirs / 1e6:.1f} M nodes/s)")
    if their_nodes != nodes:
        print("NODE COUNTS DIFFER")
        return 1
    print(f"ratio (fairy-stockfish time / tuong time): {theirs / ours:.1f}x")
    return 0


def data_lines(name):
    from importlib import resources
    text = resources.files("tuong.tools").joinpath("data", name).read_text()
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def bench_fens():
    return data_lines("bench.txt")


def mate_positions():
    """[(fen, n)] from mates.epd: the side to move mates in n."""
    positions = []
    for line in data_lines("mates.epd"):
        fields, _, ops = line.partition(" dm ")
        positions.append((fields + " 0 1", int(ops.strip(" ;"))))
    return positions


def bench_mates(args):
    """How many forced mates each engine proves, with the right distance or
    a shorter one, within the same node budget per position (or, with
    --movetime, the same time: what a player of a game sees)."""
    positions = mate_positions()
    print(f"== evaluation: {evalfile.describe()}")
    fairy_path = fairy_or_say(args.fairy)
    fairy = Fairy(fairy_path, 16) if fairy_path else None
    found = {"tuong": 0, "fairy-stockfish": 0}
    searcher = Searcher(16)
    if args.movetime:
        # As `go movetime`: a cut-off only, no soft stop (protocol/uci.py).
        ours, theirs = dict(hard_ms=args.movetime), f"movetime {args.movetime}"
        budget = f"{args.movetime} ms"
    else:
        ours, theirs, budget = dict(nodes=args.nodes), f"nodes {args.nodes}", f"{args.nodes} nodes"
    try:
        for fen, n in positions:
            searcher.clear()
            result = searcher.search(Board(fen), **ours)
            found["tuong"] += result.mate is not None and 0 < result.mate <= n
            if fairy:
                mate = fairy.go(fen, theirs).get("mate")
                found["fairy-stockfish"] += mate is not None and 0 < mate <= n
    finally:
        if fairy:
            fairy.close()
    print(f"== forced mates in 2-4 moves, {len(positions)} positions, {budget} each")
    for name, count in found.items():
        if name == "tuong" or fairy:
            print(f"  {name:16s} {count:4d} found ({100 * count / len(positions):.1f}%)")
    return 0


def _timed_search(fen, args):
    searcher = Searcher(args.hash)
    start = time.perf_counter()
    result = searcher.search(Board(fen), soft_ms=args.movetime, hard_ms=args.movetime)
    return result, (time.perf_counter() - start) * 1000


def bench_search(args):
    fens = [START_FEN] + bench_fens()
    network = evalfile.load(args.eval_file) != "hand-crafted evaluation"
    fairy_path = fairy_or_say(args.fairy)
    fairy = Fairy(fairy_path, args.hash) if fairy_path else None
    try:
        print(f"== nodes per second: go movetime {args.movetime} on {len(fens)} positions, "
              f"{evalfile.describe()}")
        ours_nodes = ours_ms = their_nodes = their_ms = 0
        hand_nodes = hand_ms = 0
        for fen in fens:
            result, ms = _timed_search(fen, args)
            ours_nodes += result.nodes
            ours_ms += ms
            line = f"tuong {result.nodes / ms * 1000:10.0f} nps depth {result.depth:2d}"
            if network:
                # The same search on the hand-crafted evaluation: the network's cost.
                evalfile.load(weights.DEFAULT_PATH)
                hand, hand_time = _timed_search(fen, args)
                evalfile.load(args.eval_file)
                hand_nodes += hand.nodes
                hand_ms += hand_time
                line += f" | hand-crafted {hand.nodes / hand_time * 1000:10.0f} nps"
            if fairy:
                info = fairy.go(fen, f"movetime {args.movetime}")
                their_nodes += info.get("nodes", 0)
                their_ms += max(info.get("time", args.movetime), 1)
                line += (f" | fairy-stockfish {info.get('nps', 0):10d} nps"
                         f" depth {info.get('depth', 0):2d}")
            print(f"  {line}  {fen.split()[0][:30]}")
        ours_nps = ours_nodes / ours_ms * 1000
        print(f"tuong: {ours_nps:.0f} nodes/s")
        if network:
            hand_nps = hand_nodes / hand_ms * 1000
            print(f"tuong, hand-crafted evaluation: {hand_nps:.0f} nodes/s "
                  f"(the network's nodes/s are {ours_nps / hand_nps:.2f}x those)")
        if fairy:
            their_nps = their_nodes / their_ms * 1000
            print(f"fairy-stockfish: {their_nps:.0f} nodes/s")
            print(f"ratio (tuong / fairy-stockfish nodes per second): {ours_nps / their_nps:.1f}x")

        print("\n== time to depth from the start position")
        infos = []
        searcher = Searcher(args.hash)
        start = time.perf_counter()
        # The whole time limit, as Fairy-Stockfish gets it: the depth reached is
        # then comparable (with a depth cap it could not pass --depth).
        searcher.search(Board(), hard_ms=args.time_limit * 1000,
                        on_info=lambda info: infos.append((info, time.perf_counter() - start)))
        reached = [(i.depth, t) for i, t in infos if i.multipv == 1 and i.bound is None]
        for depth, seconds in reached:
            if args.depth - 4 <= depth <= args.depth:
                print(f"  tuong depth {depth:2d} at {seconds:6.2f} s")
        in_limit = max((d for d, t in reached if t <= args.time_limit), default=0)
        print(f"tuong: depth {in_limit} within {args.time_limit} s")
        if fairy:
            # Its own depths (its reductions are not ours): the time each one ended.
            theirs = {info["depth"]: info["time"] / 1000
                      for info in fairy.infos(START_FEN, f"movetime {int(args.time_limit * 1000)}")
                      if not info["bound"] and info.get("multipv", 1) == 1 and "time" in info}
            for depth in range(args.depth - 4, args.depth + 1):
                if depth in theirs:
                    print(f"  fairy-stockfish depth {depth:2d} at {theirs[depth]:6.2f} s")
            print(f"fairy-stockfish: depth {max(theirs, default=0)} within {args.time_limit} s")

        print("\n== nodes to reach a depth from the start position (fresh table each)")
        for depth in (4, 5, 6):
            nodes = Searcher(args.hash).search(Board(), depth=depth).nodes
            book = BOOK_NODES.get(depth)
            versus = f"   book's alpha-beta: {book:>10,}  ({book / nodes:.0f}x fewer)" \
                if book else ""
            line = f"  depth {depth}: tuong {nodes:>10,}{versus}"
            if fairy:
                fairy_nodes = fairy.go(START_FEN, f"depth {depth}").get("nodes", 0)
                line += f"   fairy-stockfish {fairy_nodes:>8,}"
            print(line)
    finally:
        if fairy:
            fairy.close()
    return 0


def tuong_depth_nodes(fen, depth, hash_mb, threads=1):
    """{depth: nodes} at the end of each iteration, and {depth: seconds}."""
    nodes, seconds = {}, {}
    searcher = Searcher(hash_mb, threads=threads)     # its table's set-up untimed
    start = time.perf_counter()

    def note(info):
        if info.multipv == 1 and info.bound is None:
            nodes[info.depth] = info.nodes
            seconds[info.depth] = time.perf_counter() - start

    searcher.search(Board(fen), depth=depth, on_info=note)
    return nodes, seconds


def branching(per_position, low, high):
    """Per depth d in (low, high]: total nodes to d over total nodes to d-1,
    summed over the positions that reached both; and their geometric mean."""
    ratios = {}
    for d in range(low + 1, high + 1):
        pairs = [(n[d], n[d - 1]) for n in per_position if d in n and d - 1 in n]
        if pairs:
            ratios[d] = sum(a for a, _ in pairs) / sum(b for _, b in pairs)
    mean = (statistics.geometric_mean(ratios.values()) if ratios else float("nan"))
    return ratios, mean


def bench_ebf(args):
    fens = bench_fens()
    print(f"== evaluation: {evalfile.describe()}")
    fairy_path = fairy_or_say(args.fairy)
    fairy = Fairy(fairy_path, args.hash) if fairy_path else None
    ours, theirs = [], []
    try:
        for fen in fens:
            nodes, _ = tuong_depth_nodes(fen, args.depth, args.hash)
            ours.append(nodes)
            line = f"  tuong to depth {args.depth}: {nodes.get(args.depth, 0):>11,} nodes"
            if fairy:
                theirs.append(fairy.depth_nodes(fen, args.depth))
                line += f" | fairy-stockfish {theirs[-1].get(args.depth, 0):>11,}"
            print(f"{line}  {fen.split()[0][:30]}")
    finally:
        if fairy:
            fairy.close()
    print(f"== effective branching factor, total nodes to depth d over depth d-1, "
          f"{len(fens)} positions")
    for name, data in (("tuong", ours), ("fairy-stockfish", theirs)):
        if not data:
            continue
        ratios, mean = branching(data, args.low, args.depth)
        print(f"  {name:16s} " + " ".join(f"{d}:{r:.2f}" for d, r in ratios.items())
              + f"   mean {mean:.2f}")
    return 0


def bench_nodes(args):
    """The nodes each bench position takes to a fixed depth, one thread and
    a fresh table each, and their total."""
    total = 0
    print(evalfile.load(args.eval_file))
    for fen in bench_fens()[:args.positions]:
        nodes = Searcher(args.hash).search(Board(fen), depth=args.depth).nodes
        total += nodes
        print(f"{nodes:>12,}  {fen}")
    print(f"{total:>12,}  total to depth {args.depth}")
    return 0


def bench_simd(args):
    from tuong.engine import nnue
    print(evalfile.load(args.eval_file))
    if nnue.active() is None:
        print("the hand-crafted evaluation has no network loops: give --eval-file a network")
        return 1
    paths, chosen = nnue.simd_paths(), nnue.simd()
    fens = bench_fens()[:args.positions]
    times = {path: [] for path in paths}
    nodes = {}
    for _ in range(args.repeat):
        for path in paths:
            nnue.use_simd(path)
            start, total = time.perf_counter(), 0
            for fen in fens:
                total += Searcher(args.hash).search(Board(fen), depth=args.depth).nodes
            times[path].append(time.perf_counter() - start)
            nodes.setdefault(path, total)
    nnue.use_simd(chosen)
    base = statistics.median(times["portable"])
    for path in paths:
        seconds = statistics.median(times[path])
        print(f"{path:9} {nodes[path]:>11,} nodes in {seconds:6.2f} s (median of {args.repeat}): "
              f"{nodes[path] / seconds:>12,.0f} nodes/s, {base / seconds:.3f}x portable")
    if len(set(nodes.values())) != 1:
        print("error: the paths searched different trees", file=sys.stderr)
        return 1
    print(f"in use by default: {chosen}")
    return 0


def bench_threads(args):
    """Nodes/s at a fixed movetime and time to a fixed depth over bench.txt
    with one thread and with N, side by side (the ratio is what counts)."""
    fens = bench_fens()
    counts = (1, args.threads)
    print(f"== evaluation: {evalfile.describe()}")
    print(f"== {len(fens)} positions; nodes/s at go movetime {args.movetime}, "
          f"then time to depth {args.depth} (a fresh table each)")
    nps, to_depth = {}, {}
    for threads in counts:
        nodes = ms = 0
        for fen in fens:
            searcher = Searcher(args.hash, threads=threads)   # its table's set-up untimed
            start = time.perf_counter()
            result = searcher.search(Board(fen), soft_ms=args.movetime, hard_ms=args.movetime)
            ms += (time.perf_counter() - start) * 1000
            nodes += result.nodes
        nps[threads] = nodes / ms * 1000
        total = 0.0
        for fen in fens:
            _, seconds = tuong_depth_nodes(fen, args.depth, args.hash, threads)
            total += seconds.get(args.depth, float("nan"))
        to_depth[threads] = total
        print(f"  {threads} thread(s): {nps[threads]:10.0f} nodes/s, "
              f"{total:7.2f} s to depth {args.depth}")
    n = args.threads
    print(f"ratio nodes/s {n} threads / 1 thread: {nps[n] / nps[1]:.2f}x; "
          f"time to depth {n} threads / 1 thread: {to_depth[n] / to_depth[1]:.2f}")
    return 0


class Process:
    """An engine process on pipes, for timing round trips."""

    def __init__(self, command):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def send(self, text):
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def wait_for(self, prefix):
        for line in self.proc.stdout:
            if line.startswith(prefix):
                return line
        raise RuntimeError(f"engine ended before {prefix!r}")

    def roundtrip(self, command, prefix):
        start = time.perf_counter()
        self.send(command)
        self.wait_for(prefix)
        return (time.perf_counter() - start) * 1000

    def close(self):
        self.proc.kill()
        self.proc.wait()


def measure_latency(command, setup, rounds):
    """Milliseconds to answer isready and stop, `rounds` times each, while
    a `go infinite` from the start position is 0.3 s into its search."""
    engine = Process(command)
    try:
        engine.send("uci")
        engine.wait_for("uciok")
        for line in setup:
            engine.send(line)
        ready, stop = [], []
        for _ in range(rounds):
            engine.send("position startpos")
            engine.roundtrip("isready", "readyok")
            engine.send("go infinite")
            time.sleep(0.3)
            ready.append(engine.roundtrip("isready", "readyok"))
            stop.append(engine.roundtrip("stop", "bestmove"))
        return ready, stop
    finally:
        engine.close()


def bench_latency(args):
    def show(name, ready, stop):
        print(f"  {name:16s} isready median {statistics.median(ready):6.2f} ms"
              f"  max {max(ready):6.2f} ms | stop median {statistics.median(stop):6.2f} ms"
              f"  max {max(stop):6.2f} ms")
        return statistics.median(stop)

    print(f"== answers during go infinite, {args.rounds} rounds each")
    ours = show("tuong",
                *measure_latency([sys.executable, "-m", "tuong.protocol"], [], args.rounds))
    fairy = fairy_or_say(args.fairy)
    if fairy:
        theirs = show("fairy-stockfish", *measure_latency(
            [fairy], ["setoption name UCI_Variant value xiangqi"], args.rounds))
        print(f"ratio of median stop times (tuong / fairy-stockfish): {ours / theirs:.1f}x")
    return 0


def main(argv=None):
    depth, count, ms = integer(1, MAX_DEPTH), integer(1), integer(1)
    hash_mb = integer(1, MAX_HASH)
    parser = ArgumentParser(prog="tuong-bench", description="speed benchmarks")
    sub = parser.add_subparsers(dest="what", required=True)
    perft = sub.add_parser("perft", help="perft from the start position vs Fairy-Stockfish")
    perft.add_argument("--depth", type=depth, default=5)
    perft.add_argument("--repeat", type=count, default=3)
    perft.add_argument("--fairy", help="path of the fairy-stockfish binary")
    perft.set_defaults(run=bench_perft)
    search = sub.add_parser("search", help="search speed vs Fairy-Stockfish")
    search.add_argument("--movetime", type=ms, default=1000, help="ms per bench position")
    search.add_argument("--depth", type=depth, default=16, help="depth to time from the start")
    search.add_argument("--time-limit", type=real(0, strict=True), default=5.0,
                        help="seconds for the depth race")
    search.add_argument("--hash", type=hash_mb, default=64, help="MB of hash for both engines")
    search.add_argument("--fairy", help="path of the fairy-stockfish binary")
    search.add_argument("--eval-file", help="network or weights file (default: the shipped one); "
                        "with a network, the hand-crafted evaluation is timed beside it")
    search.set_defaults(run=bench_search)
    mates = sub.add_parser("mates", help="forced mates found at a node budget vs Fairy-Stockfish")
    mates.add_argument("--nodes", type=count, default=100_000, help="node budget per position")
    mates.add_argument("--movetime", type=ms, help="a time per position (ms) instead of nodes")
    mates.add_argument("--fairy", help="path of the fairy-stockfish binary")
    mates.add_argument("--eval-file", help="network or weights file (default: the shipped one)")
    mates.set_defaults(run=bench_mates)
    latency = sub.add_parser("latency", help="isready/stop answer times vs Fairy-Stockfish")
    latency.add_argument("--rounds", type=count, default=20)
    latency.add_argument("--fairy", help="path of the fairy-stockfish binary")
    latency.set_defaults(run=bench_latency)
    ebf = sub.add_parser("ebf", help="effective branching factor vs Fairy-Stockfish")
    ebf.add_argument("--depth", type=depth, default=16, help="deepest depth")
    ebf.add_argument("--low", type=depth, default=10, help="first depth of the range")
    ebf.add_argument("--hash", type=hash_mb, default=64, help="MB of hash for both engines")
    ebf.add_argument("--fairy", help="path of the fairy-stockfish binary")
    ebf.add_argument("--eval-file", help="network or weights file (default: the shipped one)")
    ebf.set_defaults(run=bench_ebf)
    nodes = sub.add_parser("nodes", help="node counts to a fixed depth (the search's signature)")
    nodes.add_argument("--depth", type=depth, default=9)
    nodes.add_argument("--positions", type=count, default=6,
                       help="how many of bench.txt's positions")
    nodes.add_argument("--hash", type=hash_mb, default=16, help="MB of hash")
    nodes.add_argument("--eval-file", help="network or weights file (default: the shipped one)")
    nodes.set_defaults(run=bench_nodes)
    threads = sub.add_parser("threads", help="nodes/s and time to depth, 1 thread vs N")
    threads.add_argument("--threads", type=integer(1, MAX_THREADS), default=2)
    threads.add_argument("--movetime", type=ms, default=2000, help="ms per bench position")
    threads.add_argument("--depth", type=depth, default=14, help="depth to time")
    threads.add_argument("--hash", type=hash_mb, default=64, help="MB of hash")
    threads.add_argument("--eval-file", help="network or weights file (default: the shipped one)")
    threads.set_defaults(run=bench_threads)
    simd = sub.add_parser("simd", help="the network's loops on each instruction set, ABAB")
    simd.add_argument("--depth", type=depth, default=11)
    simd.add_argument("--positions", type=count, default=6,
                      help="how many of bench.txt's positions")
    simd.add_argument("--repeat", type=count, default=2)
    simd.add_argument("--hash", type=hash_mb, default=16, help="MB of hash")
    simd.add_argument("--eval-file", help="network file (default: the shipped one)")
    simd.set_defaults(run=bench_simd)
    args = parser.parse_args(argv)
    command = sub.choices[args.what]
    if args.what == "ebf" and args.low >= args.depth:
        command.error(f"--low ({args.low}) must be below --depth ({args.depth})")
    if getattr(args, "fairy", None):
        check_fairy(command, args.fairy)
    if hasattr(args, "eval_file"):
        # The engine's evaluation unless told otherwise (a fresh process has the
        # hand-crafted one): what is measured is what plays.
        try:
            evalfile.load(args.eval_file)
        except ValueError as e:
            command.error(f"--eval-file: {e}")
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())

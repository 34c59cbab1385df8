"""tuong-spsa: tune the search's numeric parameters by SPSA, as fishtest does.

    tuong-spsa --state FILE [--iterations 2000] [--pairs 1] [--each nodes=5000 | tc=2+0.02]
               [--param NAME[:C_END[:R_END]]]... [--openings EPD] [--concurrency 1]
               [--cluster ADDRESS] [--engine CMD] [--seed 1] [--hash 16]

Each iteration draws a random sign for every parameter, plays --pairs game
pairs (each opening with both colours) between tuong with theta + c_k delta
and tuong with theta - c_k delta, and moves theta by R_k c_k (wins - losses)
delta: fishtest's schedule (c_k = c / k^0.101, a_k = a / (A + k)^0.602, A a
tenth of the iterations, R_k = a_k / c_k^2), with c_end (default a
twentieth of the parameter's range) and r_end (default 0.002) for each
parameter. The parameters are engine/tree.pyx's tunable ones (all of them
by default, or those --param names); the engines get them as UCI options,
which tuong lists only when started with TUONG_TUNE=1 (this tool does so).
Games go through tuong-match: locally with --concurrency, or on the Dask
cluster at --cluster.

FILE holds the run (its settings, the iteration reached, theta, the
results): each iteration is written to it, and the same command goes on
where it stopped. At the end (or at any time, with --iterations 0) the
tuned values are printed as tuong-match options, for the SPRT that alone
decides whether they are taken.
"""
import json
import math
import os
import random
import shlex
import sys

from tuong.tools import doc_parser
from tuong.tools.cli import check_cluster, check_input, integer

ALPHA, GAMMA = 0.602, 0.101          # fishtest's exponents
R_END = 0.002


def parameters():
    """{name: (default, lowest, highest)} of the tunable parameters."""
    from tuong.engine import tree
    return dict(tree.TUNABLE)


class Spsa:
    """The state of a run: theta, the schedule's constants, the iteration."""

    def __init__(self, chosen, iterations, seed):
        known = parameters()
        self.iterations, self.k, self.seed = iterations, 0, seed
        self.theta, self.bounds, self.c_end, self.r_end = {}, {}, {}, {}
        for name, c_end, r_end in chosen:
            default, low, high = known[name]
            self.theta[name] = float(default)
            self.bounds[name] = (low, high)
            self.c_end[name] = c_end if c_end is not None else max(1.0, (high - low) / 20)
            self.r_end[name] = r_end if r_end is not None else R_END
        self.history = []                 # [(k, wins, draws, losses)]
        self.start = (0, dict(self.theta))  # where the history begins: theta follows from it

    def step_sizes(self, k):
        """(c_k, R_k) for each parameter at iteration k (1-based)."""
        n, big_a = max(1, self.iterations), 0.1 * max(1, self.iterations)
        out = {}
        for name in self.theta:
            c = self.c_end[name] * n ** GAMMA
            a = self.r_end[name] * self.c_end[name] ** 2 * (big_a + n) ** ALPHA
            c_k = c / k ** GAMMA
            a_k = a / (big_a + k) ** ALPHA
            out[name] = (c_k, a_k / c_k ** 2)
        return out

    def perturbation(self, k):
        """(delta, theta+, theta-) for iteration k: integers within bounds."""
        rng = random.Random(f"{self.seed}:{k}")
        sizes = self.step_sizes(k)
        delta = {name: rng.choice((-1, 1)) for name in self.theta}
        plus, minus = {}, {}
        for name, value in self.theta.items():
            low, high = self.bounds[name]
            shift = sizes[name][0] * delta[name]
            plus[name] = min(high, max(low, round(value + shift)))
            minus[name] = min(high, max(low, round(value - shift)))
        return delta, plus, minus

    def moved(self, theta, k, delta, result):
        """theta after iteration k's step: result is theta+'s wins - losses."""
        sizes = self.step_sizes(k)
        moved = {}
        for name, value in theta.items():
            low, high = self.bounds[name]
            c_k, r_k = sizes[name]
            moved[name] = min(high, max(low, value + r_k * c_k * result * delta[name]))
        return moved

    def update(self, k, delta, wins, draws, losses):
        self.theta = self.moved(self.theta, k, delta, wins - losses)
        self.k = k
        self.history.append((k, wins, draws, losses))

    def rounded(self):
        return {name: round(value) for name, value in self.theta.items()}

    def as_dict(self, settings):
        data = {"settings": settings, "k": self.k, "theta": self.theta}
        if self.start is not None:       # None: a file from before starts were kept
            data["start"] = {"k": self.start[0], "theta": self.start[1]}
        data["history"] = self.history
        return data

    def take(self, saved):
        """Go on from a run file. Its theta must follow from its start and its
        results (ValueError if not): a file edited, cut or of another run is
        refused rather than tuned on. A file written before the start was
        kept (none) is taken as it is."""
        self.k, self.theta = saved["k"], {k: float(v) for k, v in saved["theta"].items()}
        self.history = [tuple(h) for h in saved["history"]]
        self.iterations = saved["settings"]["iterations"]     # the run's schedule
        if "start" not in saved:
            self.start = None            # unknown: not made up (it would refuse the file later)
            return
        start_k, start_theta = saved["start"]["k"], saved["start"]["theta"]
        if [h[0] for h in self.history] != list(range(start_k + 1, self.k + 1)):
            raise ValueError(f"its results are not iterations {start_k + 1} to {self.k}")
        start = {name: float(start_theta[name]) for name in self.theta}
        theta = start
        for k, wins, _draws, losses in self.history:
            # The signs come from the seed and k alone, not from theta.
            theta = self.moved(theta, k, self.perturbation(k)[0], wins - losses)
        if any(abs(theta[name] - self.theta[name]) > 1e-6 for name in self.theta):
            raise ValueError("its theta does not follow from its start and its results")
        self.start = (start_k, start)


def save(path, data):
    partial = path + ".partial"
    with open(partial, "w") as f:
        json.dump(data, f, indent=1)
    os.replace(partial, path)            # whole or not at all


def play_pair(args, plus, minus, k):
    """(wins, draws, losses) of theta+ against theta- over the iteration's games."""
    from tuong.tools.match import cli as match
    engine = args.engine or default_engine()
    argv = []
    for name, values in (("plus", plus), ("minus", minus)):
        argv += ["-engine", f"name={name}", f"cmd=env TUONG_TUNE=1 {engine}"]
        argv += [f"option.{option}={value}" for option, value in values.items()]
    # Each iteration its own openings: random order, seeded by the run and k.
    # One thread: a game's moves depend on nothing but theta, the seed and the limit.
    argv += ["-each", args.each, f"option.Hash={args.hash}", "option.Threads=1",
             "-games", str(2 * args.pairs),
             "-concurrency", str(args.concurrency), "-seed", str(args.seed * 1_000_003 + k),
             "-openings", f"file={args.openings or match.DEFAULT_OPENINGS}", "order=random"]
    if args.cluster:
        argv += ["-cluster", args.cluster]
    with open(os.devnull, "w") as quiet:
        stats, _, interrupted = match.run(match.parse_args(argv), stream=quiet)
    if interrupted:
        raise KeyboardInterrupt
    return stats.head_to_head()


def default_engine():
    from tuong.tools.cli import default_engine as engine_argv
    return " ".join(shlex.quote(word) for word in engine_argv())


def _param(text):
    name, *rest = text.split(":")
    known = parameters()
    if name not in known:
        raise ValueError(f"no tunable parameter {name!r} (known: {', '.join(known)})")
    numbers = [float(x) if x else None for x in rest] + [None, None]
    c_end, r_end = numbers[0], numbers[1]
    if c_end is not None and c_end < 0.5:
        raise ValueError(f"{name}: C_END must be at least 0.5 (below, theta+ and theta- round "
                         "to the same value and the games teach nothing)")
    if r_end is not None and r_end <= 0:
        raise ValueError(f"{name}: R_END must be above 0")
    return name, c_end, r_end


def main(argv=None):
    parser = doc_parser("tuong-spsa", __doc__)
    parser.add_argument("--state", required=True, help="the run's file (JSON), resumed if there")
    parser.add_argument("--iterations", type=integer(0), default=2000)
    parser.add_argument("--pairs", type=integer(1), default=1, help="game pairs an iteration")
    parser.add_argument("--each", default="nodes=5000",
                        help="the limit of every game, as tuong-match's -each (nodes=N, tc=B+I)")
    parser.add_argument("--param", action="append", default=[],
                        help="NAME[:C_END[:R_END]] (default: every tunable parameter)")
    parser.add_argument("--openings", help="EPD or PGN openings (tuong-openings)")
    parser.add_argument("--concurrency", type=integer(1), default=1)
    parser.add_argument("--cluster", help="tcp://HOST:PORT of a Dask scheduler, or local[:N]")
    parser.add_argument("--engine", help="command that starts tuong (default: this tuong)")
    parser.add_argument("--hash", type=integer(1, 4096), default=16)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        chosen = [_param(p) for p in args.param] or \
            [(name, None, None) for name in parameters()]
    except ValueError as error:
        parser.error(f"--param: {error}")
    if "=" not in args.each or " " in args.each:
        parser.error("--each is one LIMIT=VALUE, e.g. nodes=5000 or tc=2+0.02")
    if args.openings:
        check_input(parser, args.openings, "--openings")
    if args.cluster:
        check_cluster(parser, args.cluster, "--cluster")
    settings = {"params": [list(c) for c in chosen], "iterations": args.iterations,
                "pairs": args.pairs, "each": args.each, "seed": args.seed,
                "openings": os.path.basename(args.openings or "")}
    spsa = Spsa(chosen, args.iterations, args.seed)
    if os.path.exists(args.state):
        try:
            with open(args.state) as f:
                saved = json.load(f)
            # --iterations 0 only reads the file: its values, whatever the run's length.
            theirs = dict(saved["settings"], iterations=settings["iterations"]) \
                if args.iterations == 0 else saved["settings"]
            if theirs != settings:
                parser.error(f"--state {args.state} is a run with other settings: "
                             "give another file, or the same arguments")
            spsa.take(saved)
        except (OSError, ValueError, KeyError, TypeError) as error:
            parser.error(f"--state {args.state}: cannot be read ({error})")
        if args.iterations:
            print(f"resuming after iteration {spsa.k} of {args.iterations}", flush=True)
    try:
        for k in range(spsa.k + 1, args.iterations + 1):
            delta, plus, minus = spsa.perturbation(k)
            wins, draws, losses = play_pair(args, plus, minus, k)
            spsa.update(k, delta, wins, draws, losses)
            save(args.state, spsa.as_dict(settings))
            total = [sum(h[i] for h in spsa.history) for i in (1, 2, 3)]
            print(f"\riteration {k}/{args.iterations}: +{total[0]} ={total[1]} -{total[2]} "
                  f"(theta+ against theta-); " + " ".join(
                      f"{name}={value:.1f}" for name, value in spsa.theta.items()),
                  end="", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print(f"\ninterrupted: {args.state} holds iteration {spsa.k}", file=sys.stderr)
        return 130
    print(file=sys.stderr)
    tuned = spsa.rounded()
    print("tuned: " + " ".join(f"option.{name}={value}" for name, value in tuned.items()))
    defaults = parameters()
    changed = {name: value for name, value in tuned.items() if value != defaults[name][0]}
    print(f"{len(changed)} of {len(tuned)} parameters moved from their defaults"
          + (": " + ", ".join(f"{n} {defaults[n][0]} -> {v}" for n, v in changed.items())
             if changed else ""))
    if not math.isfinite(sum(spsa.theta.values())):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""tuong-compare: minimax, alpha-beta and NegaScout measured side by side.

    tuong-compare [--games xiangqi,tictactoe,dodgem,queens] [--max-depth N]
                  [--budget SECONDS] [--plot FILE.png] [--csv FILE]

Each algorithm runs with and without the transposition table and move
ordering (engine/compare.pyx), on the same positions at the same depths,
through the same GameOps as the engine. One row per game, position, depth
and algorithm: nodes, leaves (static evaluations and ends of the game),
time, the root value and the best move. Every algorithm must return the
same root value at a depth; a mismatch is an error (exit status 1).

Positions: the Xiangqi start (depths 1-5), the empty tic-tac-toe board to
the end of the game (depth 9, whatever --max-depth says: it is the exact
anchor), Dodgem from the start, and queens on an empty 5x5 and 8x8 board.
An algorithm stops at the first depth that would exceed the budget (its
time at the depth before, times the growth of its node count from the one
before that); a run that overruns three budgets anyway is cut off and left
out.

--plot needs matplotlib: pip install 'tuong[plot]'.
"""
import csv
import os
import sys

from tuong.engine.compare import Comparison
from tuong.engine.games import GAMES
from tuong.engine.game import MATE_SCORE, MATE_SCORE_BOUND
from tuong.tools import doc_parser
from tuong.tools.cli import check_output, integer, quiet_broken_pipe, real

# (label, algorithm, table, ordering): minimax visits every node however it
# is ordered, so ordering is left out for it.
VARIANTS = [
    ("minimax", "minimax", False, False),
    ("minimax+tt", "minimax", True, False),
    ("alphabeta", "alphabeta", False, False),
    ("alphabeta+order", "alphabeta", False, True),
    ("alphabeta+tt", "alphabeta", True, False),
    ("alphabeta+tt+order", "alphabeta", True, True),
    ("negascout", "negascout", False, False),
    ("negascout+order", "negascout", False, True),
    ("negascout+tt", "negascout", True, False),
    ("negascout+tt+order", "negascout", True, True),
]

# game -> [(position label, FEN or None, deepest depth)]
POSITIONS = {
    "xiangqi": [("start", None, 5)],
    "tictactoe": [("empty board", None, 9)],
    "dodgem": [("start", None, 12)],
    "queens": [("empty 5x5", "5/5/5/5/5 w", 10), ("empty 8x8", None, 6)],
}
EXACT_DEPTHS = {"tictactoe"}         # searched to the end whatever --max-depth says

# The texts' own figures, printed beside ours.
TEXT_FIGURES = """\
The texts' figures, for b = 40 at depth 4: minimax 2,560,000 leaves, perfectly
ordered alpha-beta 3,199. The book's alpha-beta (VSCCP) needed 150,480
evaluated nodes for depth 4 from the Xiangqi start."""


def value_text(value):
    if abs(value) >= MATE_SCORE_BOUND:
        plies = MATE_SCORE - abs(value)
        return f"mate {'' if value > 0 else '-'}{(plies + 1) // 2}"
    return str(value)


def predicted(past):
    """Seconds the next depth should take: the last depth's time grown as its
    node count grew over the one before (node counts are steadier than the
    times of fast runs)."""
    if len(past) < 2:
        return 0.0
    (_, before), (seconds, nodes) = past[-2], past[-1]
    return seconds * max(nodes / max(before, 1), 1.0)


def measure(games, max_depth, budget, out=sys.stdout):
    """Run every variant; returns (rows, mismatches)."""
    comparison = Comparison()
    rows, mismatches = [], []
    header = (f"{'game':<10} {'position':<12} {'depth':>5} {'algorithm':<19} {'nodes':>12} "
              f"{'leaves':>12} {'seconds':>9} {'value':>9}  best")
    print(header, file=out)
    for game in games:
        board_class = GAMES[game]
        for label, fen, deepest in POSITIONS[game]:
            top = deepest if game in EXACT_DEPTHS else min(deepest, max_depth)
            times = {}                       # variant -> [(seconds, nodes) per depth]
            for depth in range(1, top + 1):
                values = {}
                for name, algorithm, table, ordering in VARIANTS:
                    past = times.setdefault(name, [])
                    if past is None:
                        continue             # stopped at an earlier depth
                    if predicted(past) > budget:
                        times[name] = None
                        continue
                    board = board_class(fen) if fen else board_class()
                    result = comparison.run(board, algorithm, depth, table, ordering, 3 * budget)
                    if not result["finished"]:
                        times[name] = None
                        continue
                    past.append((result["seconds"], result["nodes"]))
                    values[name] = result["value"]
                    row = {"game": game, "position": label, "depth": depth, "algorithm": name,
                           **result}
                    rows.append(row)
                    print(f"{game:<10} {label:<12} {depth:>5} {name:<19} {result['nodes']:>12,} "
                          f"{result['leaves']:>12,} {result['seconds']:>9.3f} "
                          f"{value_text(result['value']):>9}  {result['best'] or '-'}",
                          file=out, flush=True)
                if len(set(values.values())) > 1:
                    mismatches.append((game, label, depth, values))
                    print(f"MISMATCH at {game} {label} depth {depth}: {values}", file=out)
    return rows, mismatches


def write_csv(rows, path):
    fields = ["game", "position", "depth", "algorithm", "nodes", "leaves", "seconds", "value",
              "best"]
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


def plot(rows, path):
    """Nodes against depth on a log scale: a panel per game and position,
    a line per algorithm."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator
    panels = list(dict.fromkeys((r["game"], r["position"]) for r in rows))
    columns = min(3, len(panels))
    lines = (len(panels) + columns - 1) // columns
    fig, axes = plt.subplots(lines, columns, figsize=(5.5 * columns, 4.2 * lines), squeeze=False)
    for ax, (game, position) in zip(axes.flat, panels):
        for name, *_ in VARIANTS:
            points = [(r["depth"], r["nodes"]) for r in rows
                      if (r["game"], r["position"], r["algorithm"]) == (game, position, name)]
            if points:
                style = "--" if "tt" in name else "-"
                ax.plot(*zip(*points), style, marker="o", markersize=3, label=name)
        ax.set_yscale("log")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(f"{game}: {position}")
        ax.set_xlabel("depth")
        ax.set_ylabel("nodes")
        ax.grid(True, which="both", alpha=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


@quiet_broken_pipe
def main(argv=None):
    parser = doc_parser("tuong-compare", __doc__)
    parser.add_argument("--games", default=",".join(POSITIONS), metavar="GAME,...",
                        help="comma-separated: xiangqi,tictactoe,dodgem,queens (default: all)")
    parser.add_argument("--max-depth", type=integer(1), default=5, metavar="N",
                        help="deepest depth (default 5)")
    parser.add_argument("--budget", type=real(0, strict=True), default=20.0, metavar="SECONDS",
                        help="seconds an algorithm may spend on one depth (default 20)")
    parser.add_argument("--plot", metavar="FILE.png", help="write a plot of nodes against depth")
    parser.add_argument("--csv", metavar="FILE", help="write the rows as CSV")
    args = parser.parse_args(argv)
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = [g for g in games if g not in POSITIONS]
    if unknown or not games:
        parser.error(f"--games {args.games!r}: choose from {', '.join(POSITIONS)}")
    if args.plot:
        try:
            from matplotlib.backend_bases import FigureCanvasBase
        except ImportError:
            parser.error("--plot needs matplotlib: pip install 'tuong[plot]'")
        # The name's extension says the format (none: png).
        kind = os.path.splitext(args.plot)[1][1:].lower()
        formats = FigureCanvasBase.get_supported_filetypes()
        if kind and kind not in formats:
            parser.error(f"--plot {args.plot}: matplotlib writes .{', .'.join(formats)}, "
                         f"not .{kind}")
    for option, path in (("--csv", args.csv), ("--plot", args.plot)):
        if path:
            check_output(parser, path, option)
    rows, mismatches = measure(games, args.max_depth, args.budget)
    print()
    print(TEXT_FIGURES)
    if args.csv:
        write_csv(rows, args.csv)
    if args.plot:
        plot(rows, args.plot)
        print(f"plot written to {args.plot}")
    if mismatches:
        print(f"{len(mismatches)} depth(s) where the algorithms disagree", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

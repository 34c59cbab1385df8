"""tuong-levels: how the playing levels (UCI_LimitStrength / UCI_Elo) err.

    tuong-levels errors [--positions N] [--judge-depth D] [--elos 800,1200,...]
                        [--tries K] [--seed S]

At each level, each of N positions (every k-th of tools/data's sample of
positions from games) gets K moves chosen as the engine at that level
chooses them (engine/levels.py: a node-limited MultiPV search, then a
weighted choice), on a fixed seed. A deep search judges each move: its loss
is how much worse than the best move it is, in centipawns, by a search to
D plies of the position and of the position after the move. The table
gives, by level, the share of moves that lose 200 cp or more and the
average loss, each loss counted up to 1,000 cp (a move that allows a mate
costs the game, as a lost rook does, and would otherwise swamp the mean).
The strength each level has in games is measured by matches (`tuong-match
... option.UCI_LimitStrength=true option.UCI_Elo=N`; docs/guide/levels.md).
"""
import gzip
import random
import sys
from pathlib import Path

from tuong.tools.cli import ArgumentParser

SAMPLE = Path(__file__).resolve().parent / "data" / "sample-positions.txt.gz"
BLUNDER_CP = 200
LOSS_CAP = 1000


def sample_positions(count):
    """`count` positions spread over the sample (every k-th, in order)."""
    with gzip.open(SAMPLE, "rt") as f:
        fens = [" ".join(line.split()[:2]) for line in f if line.strip()]
    step = max(1, len(fens) // count)
    return fens[::step][:count]


class Judge:
    """A deep search's view of a position's moves, kept per position."""

    def __init__(self, depth, hash_mb=64):
        from tuong.engine.search import Searcher
        self.depth = depth
        self.searcher = Searcher(hash_mb, threads=1)
        self.best = {}
        self.after = {}

    def _score(self, board, depth):
        result = self.searcher.search(board, depth=depth)
        return score_of(result.score, result.mate)

    def loss(self, fen, move):
        """How many cp `move` loses against the best move of `fen` (0 or more)."""
        from tuong.engine.board import Board
        if fen not in self.best:
            self.best[fen] = self._score(Board(fen), self.depth)
        if (fen, move) not in self.after:
            board = Board(fen)
            board.push(move)
            over = board.outcome() if board.is_game_over() else None
            if over is not None:                 # the game ends: for the side now to move
                from tuong.engine.levels import MATE_SCORE
                self.after[fen, move] = MATE_SCORE if over < 0 else -MATE_SCORE if over else 0
            else:
                self.after[fen, move] = -self._score(board, self.depth - 1)
        return max(0, self.best[fen] - self.after[fen, move])


def score_of(cp, mate):
    """A search's score as centipawns, a mate as the engine scores it."""
    from tuong.engine.levels import MATE_SCORE
    if mate is not None:
        return MATE_SCORE - abs(mate) if mate > 0 else -MATE_SCORE + abs(mate)
    return cp or 0


def choose_move(fen, level, rng, searcher):
    """The move a player of `level` chooses in `fen` (engine/levels.py)."""
    from tuong.engine import levels
    from tuong.engine.board import Board
    lines = levels.Lines()
    board = Board(fen)
    result = searcher.search(board, nodes=level.search_nodes, multipv=level.candidates,
                             on_info=lines)
    candidates = levels.complete(lines, result.depth, searcher, board, level)
    if not candidates:
        return result.best
    return levels.choose(candidates, level, rng, fen).pv[0]


def errors(elos, fens, judge, tries=1, seed=1):
    """{elo: [loss of each move]} for the levels' choices on `fens`."""
    from tuong.engine import levels
    from tuong.engine.search import Searcher
    out = {}
    for elo in elos:
        level = levels.level_for_elo(elo)
        rng = random.Random(f"{seed}-{elo}")
        losses = []
        for fen in fens:
            for _ in range(tries):
                searcher = Searcher(16, threads=1)       # a fresh table: each choice alone
                losses.append(judge.loss(fen, choose_move(fen, level, rng, searcher)))
        out[elo] = losses
    return out


def report(table, stream=None):
    from tuong.engine import levels
    stream = stream or sys.stdout
    print(f"{'Elo':>5} {'nodes/line':>10} {'lines':>5} {'moves':>6} "
          f"{'>= ' + str(BLUNDER_CP) + ' cp':>10} {'avg loss':>9}", file=stream)
    for elo, losses in table.items():
        level = levels.level_for_elo(elo)
        large = sum(loss >= BLUNDER_CP for loss in losses)
        print(f"{elo:>5} {level.nodes:>10,} {level.candidates:>5} {len(losses):>6} "
              f"{100 * large / len(losses):>9.1f}% "
              f"{sum(min(loss, LOSS_CAP) for loss in losses) / len(losses):>8.1f}",
              file=stream)


def main(argv=None):
    from tuong.engine import levels
    parser = ArgumentParser(prog="tuong-levels", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    err = commands.add_parser("errors", help="large errors and average loss by level")
    err.add_argument("--positions", type=int, default=40)
    err.add_argument("--judge-depth", type=int, default=10)
    err.add_argument("--elos", default=",".join(str(e) for e in
                                                range(levels.MIN_ELO, levels.MAX_ELO + 1, 200)))
    err.add_argument("--tries", type=int, default=2, help="moves chosen a position and level")
    err.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        elos = [int(e) for e in args.elos.split(",")]
    except ValueError:
        parser.error(f"--elos: comma-separated integers, not {args.elos!r}")
    if not all(levels.MIN_ELO <= e <= levels.MAX_ELO for e in elos):
        parser.error(f"--elos: each from {levels.MIN_ELO} to {levels.MAX_ELO}")
    if not 1 <= args.positions <= 5000 or not 2 <= args.judge_depth <= 30 or args.tries < 1:
        parser.error("--positions 1-5000, --judge-depth 2-30, --tries 1 or more")
    from tuong.engine import evalfile
    evalfile.load()
    fens = sample_positions(args.positions)
    table = errors(elos, fens, Judge(args.judge_depth), args.tries, args.seed)
    print(f"{len(fens)} positions x {args.tries} moves a level; judge: depth "
          f"{args.judge_depth}, {evalfile.describe()}")
    report(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""tuong-levels: how the playing levels (UCI_LimitStrength / UCI_Elo) err.

    tuong-levels errors [--positions N] [--judge-depth D] [--elos 800,1200,...]
                        [--tries K] [--seed S]
    tuong-levels hanging [--elos ...] [--tries K] [--seed S] [--epd FILE]
    tuong-levels games [--elos ...] [--games G] [--seed S] [--max-plies P]

`errors`: at each level, each of N positions (every k-th of tools/data's
sample of positions from games) gets K moves chosen as the engine at that
level chooses them (engine/levels.py: a node-limited MultiPV search, then a
weighted choice), on a fixed seed. A deep search judges each move: its loss
is how much worse than the best move it is, in centipawns, by a search to
D plies of the position and of the position after the move. The table
gives, by level, the share of moves that lose 200 cp or more and the
average loss, each loss counted up to 1,000 cp (a move that allows a mate
costs the game, as a lost rook does, and would otherwise swamp the mean).

`hanging`: the positions of tools/data/hanging.epd, where the opponent has
just left a chariot, horse or cannon en prise and taking it is best by a
wide margin (its `bm`: the captures of that piece); each level chooses K
moves in each, and the table gives how often it took the piece, overall and
by the piece left hanging.

`games`: each level against the next one in --elos, G games a pair from the
sample openings (colours alternating), played in this process without a
clock (each level at its own node budget): the higher level's score, and
how often each level moved a piece back to a square it had just left
(engine/levels.py's `returns`), the aimless shuffle a level should not play.
A quick check of the scale's order, not its calibration: the strength each
level has in games is measured by matches (`tuong-match ...
option.UCI_LimitStrength=true option.UCI_Elo=N`; docs/guide/levels.md).
"""
import gzip
import math
import random
import sys
from pathlib import Path

from tuong.tools.cli import ArgumentParser

DATA = Path(__file__).resolve().parent / "data"
SAMPLE = DATA / "sample-positions.txt.gz"
HANGING = DATA / "hanging.epd"
OPENINGS = DATA / "openings.epd"
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
        from tuong.engine.levels import score_cp
        result = self.searcher.search(board, depth=depth)
        return score_cp(result.score, result.mate)

    def loss(self, fen, move):
        """How many cp `move` loses against the best move of `fen` (0 or more)."""
        from tuong.engine.board import Board
        if fen not in self.best:
            self.best[fen] = self._score(Board(fen), self.depth)
        if (fen, move) not in self.after:
            board = Board(fen)
            board.push(move)
            over = board.mover_outcome()
            if over is not None:                 # the game ends: for the side now to move
                from tuong.engine.levels import MATE_SCORE
                self.after[fen, move] = MATE_SCORE if over < 0 else -MATE_SCORE if over else 0
            else:
                self.after[fen, move] = -self._score(board, self.depth - 1)
        return max(0, self.best[fen] - self.after[fen, move])


def choose_move(fen, level, rng, searcher, board=None):
    """The move a player of `level` chooses in `fen` (engine/levels.py), as
    the engine's session chooses it; `board`, the game (`fen` with the moves
    that led there), lets the choice see the player's own last moves."""
    from tuong.engine import levels
    from tuong.engine.board import Board
    lines = levels.Lines()
    board = Board(fen) if board is None else board
    result = searcher.search(board, nodes=level.search_nodes, multipv=level.candidates,
                             on_info=lines)
    candidates = levels.complete(lines, result.depth, searcher, board, level)
    if not candidates:
        return result.best
    return levels.choose(candidates, level, rng, fen, history=board.move_stack).pv[0]


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


def read_hanging(path=HANGING):
    """[(fen, captures, piece letter)] of an EPD whose `bm` lists the
    captures of a hanging piece (tools/data/hanging.epd)."""
    from tuong.engine.rows import xiangqi_squares
    out = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            fields = line.split()
            if len(fields) < 6 or fields[4] != "bm":
                raise ValueError(f"{path}:{number}: expected '<placement> <side> - - bm ...'")
            fen = " ".join(fields[:2])
            captures = line.split(" bm ", 1)[1].split(";", 1)[0].split()
            square = int(captures[0][3]) * 9 + "abcdefghi".index(captures[0][2])
            piece = xiangqi_squares(fields[0])[square]
            if piece is None:
                raise ValueError(f"{path}:{number}: {captures[0]} captures nothing")
            out.append((fen, captures, piece.lower()))
    return out


def hanging(elos, positions, tries=10, seed=1):
    """{elo: {piece: [taken, chosen]}} (piece 'r', 'h', 'c'; a horse is 'n'
    in a FEN): how often each level took the hanging piece of `positions`."""
    from tuong.engine import levels
    from tuong.engine.search import Searcher
    out = {}
    for elo in elos:
        level = levels.level_for_elo(elo)
        rng = random.Random(f"{seed}-{elo}")
        counts = {"r": [0, 0], "h": [0, 0], "c": [0, 0]}
        for fen, captures, piece in positions:
            kind = counts["h" if piece == "n" else piece]
            for _ in range(tries):
                move = choose_move(fen, level, rng, Searcher(16, threads=1))
                kind[0] += move in captures
                kind[1] += 1
        out[elo] = counts
    return out


def take_rate(counts):
    """The share of choices that took the piece, over all pieces."""
    taken = sum(c[0] for c in counts.values())
    chosen = sum(c[1] for c in counts.values())
    return taken / chosen if chosen else 0.0


def report_hanging(table, stream=None):
    stream = stream or sys.stdout
    print(f"{'Elo':>5} {'moves':>6} {'took':>7} {'chariot':>8} {'horse':>7} {'cannon':>7}",
          file=stream)
    for elo, counts in table.items():
        chosen = sum(c[1] for c in counts.values())
        by_piece = " ".join(f"{100 * c[0] / c[1] if c[1] else 0:>{w}.1f}%"
                            for c, w in ((counts["r"], 7), (counts["h"], 6), (counts["c"], 6)))
        print(f"{elo:>5} {chosen:>6} {100 * take_rate(counts):>6.1f}% {by_piece}", file=stream)


def openings(count):
    """The first `count` positions of tools/data/openings.epd (FENs)."""
    with open(OPENINGS, encoding="utf-8") as f:
        fens = [" ".join(line.split()[:2]) for line in f if line.strip()]
    return fens[:count]


def play_game(fen, red, black, seed, max_plies=200):
    """One game from `fen` between two levels in this process, without a
    clock: (score for Red 1, 0.5 or 0, {side: [returns, moves]}), the
    ending judged as tuong-match's referee judges it (its move limit
    `max_plies`)."""
    from tuong.engine import levels
    from tuong.engine.board import Board
    from tuong.engine.search import Searcher
    from tuong.tools.match.referee import Rules, judge
    board = Board(fen)
    rng = random.Random(seed)
    players = {"w": (red, Searcher(16, threads=1)), "b": (black, Searcher(16, threads=1))}
    moves = {"w": [0, 0], "b": [0, 0]}
    rules = Rules(max_plies=max_plies)
    while True:
        ended = judge(board, rules)
        if ended is not None:
            result = ended.result
            return (1.0 if result == "1-0" else 0.0 if result == "0-1" else 0.5), moves
        side = board.fen().split()[1]
        level, searcher = players[side]
        move = choose_move(board.fen(), level, rng, searcher, board)
        moves[side][0] += levels.returns(move, board.move_stack)
        moves[side][1] += 1
        board.push(move)


def games(elos, count, seed=1, max_plies=200, stream=None):
    """[(lower elo, higher elo, higher's score, games, {elo: [returns,
    moves]})]: each level against the next in `elos`, `count` games a pair
    from the sample openings, colours alternating."""
    from tuong.engine import levels
    out = []
    fens = openings((count + 1) // 2)
    for low, high in zip(elos, elos[1:]):
        weak, strong = levels.level_for_elo(low), levels.level_for_elo(high)
        score = 0.0
        shuffles = {low: [0, 0], high: [0, 0]}
        for n in range(count):
            fen = fens[n // 2]
            red, black = (strong, weak) if n % 2 == 0 else (weak, strong)
            red_score, moves = play_game(fen, red, black, f"{seed}-{low}-{high}-{n}", max_plies)
            score += red_score if n % 2 == 0 else 1 - red_score
            for side, level in (("w", red), ("b", black)):
                shuffles[level.elo][0] += moves[side][0]
                shuffles[level.elo][1] += moves[side][1]
        out.append((low, high, score, count, shuffles))
        if stream is not None:
            report_games(out[-1:], stream, header=len(out) == 1)
    return out


def report_games(table, stream=None, header=True):
    stream = stream or sys.stdout
    if header:
        print(f"{'pair':>11} {'games':>5} {'higher scores':>13} {'Elo':>6} "
              f"{'returns (lower)':>15} {'returns (higher)':>16}", file=stream)
    for low, high, score, count, shuffles in table:
        share = score / count
        diff = -400 * math.log10(1 / share - 1) if 0 < share < 1 else \
            math.copysign(math.inf, share - 0.5)
        rates = [100 * shuffles[e][0] / max(1, shuffles[e][1]) for e in (low, high)]
        print(f"{high:>5} v {low:<5} {count:>5} {score:>7.1f} {100 * share:>4.0f}% {diff:>+6.0f} "
              f"{rates[0]:>14.1f}% {rates[1]:>15.1f}%", file=stream, flush=True)


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


def parse_elos(parser, text):
    """--elos as integers on the scale, or the parser's error."""
    from tuong.engine import levels
    try:
        elos = [int(e) for e in text.split(",")]
    except ValueError:
        parser.error(f"--elos: comma-separated integers, not {text!r}")
    if not all(levels.MIN_ELO <= e <= levels.MAX_ELO for e in elos):
        parser.error(f"--elos: each from {levels.MIN_ELO} to {levels.MAX_ELO}")
    return elos


def main(argv=None):
    from tuong.engine import levels
    every_200 = ",".join(str(e) for e in range(levels.MIN_ELO, levels.MAX_ELO + 1, 200))
    parser = ArgumentParser(prog="tuong-levels", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    err = commands.add_parser("errors", help="large errors and average loss by level")
    err.add_argument("--positions", type=int, default=40)
    err.add_argument("--judge-depth", type=int, default=10)
    err.add_argument("--elos", default=every_200)
    err.add_argument("--tries", type=int, default=2, help="moves chosen a position and level")
    err.add_argument("--seed", type=int, default=1)
    hang = commands.add_parser("hanging", help="how often each level takes a hanging piece")
    hang.add_argument("--elos", default=every_200)
    hang.add_argument("--tries", type=int, default=10, help="moves chosen a position and level")
    hang.add_argument("--seed", type=int, default=1)
    hang.add_argument("--epd", default=str(HANGING),
                      help="positions, each with its `bm` the captures of the hanging piece")
    play = commands.add_parser("games", help="each level against the next, in this process")
    play.add_argument("--elos", default=",".join(str(a[0]) for a in levels.ANCHORS))
    play.add_argument("--games", type=int, default=20, help="games a pair")
    play.add_argument("--seed", type=int, default=1)
    play.add_argument("--max-plies", type=int, default=200, help="a draw after this many plies")
    args = parser.parse_args(argv)
    elos = parse_elos(parser, args.elos)
    if args.command == "errors" and (not 1 <= args.positions <= 5000
                                     or not 2 <= args.judge_depth <= 30 or args.tries < 1):
        parser.error("--positions 1-5000, --judge-depth 2-30, --tries 1 or more")
    if args.command == "hanging" and args.tries < 1:
        parser.error("--tries: 1 or more")
    if args.command == "games" and (not 1 <= args.games <= 200 or len(elos) < 2
                                    or not 10 <= args.max_plies <= 1000):
        parser.error("--games 1-200, --max-plies 10-1000, --elos two or more")
    from tuong.engine import evalfile
    evalfile.load()
    if args.command == "hanging":
        try:
            positions = read_hanging(args.epd)
        except (OSError, ValueError) as err:
            parser.error(f"--epd: {err}")
        table = hanging(elos, positions, args.tries, args.seed)
        print(f"{len(positions)} positions x {args.tries} moves a level, seed {args.seed}; "
              f"{evalfile.describe()}")
        report_hanging(table)
        return 0
    if args.command == "games":
        print(f"{args.games} games a pair, seed {args.seed}, {args.max_plies} plies at most; "
              f"{evalfile.describe()}")
        games(elos, args.games, args.seed, args.max_plies, stream=sys.stdout)
        return 0
    fens = sample_positions(args.positions)
    table = errors(elos, fens, Judge(args.judge_depth), args.tries, args.seed)
    print(f"{len(fens)} positions x {args.tries} moves a level; judge: depth "
          f"{args.judge_depth}, {evalfile.describe()}")
    report(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""tuong-openings: many varied, balanced opening positions for self-play.

    tuong-openings -o openings.epd [--count 2000] [--plies 6-12] [--depth 6]
                   [--margin 80] [--temperature 40] [--seed 1]

Each line is a random walk from the initial position of 6-12 plies (the
length drawn uniformly). At every ply the move is drawn among the legal
moves that do not hang the moved piece (static exchange >= 0; all of them
if none is safe), each with weight exp((s - best) / T), where s is the
static evaluation after it for the mover and T is --temperature (40 cp):
developing moves are likelier than aimless ones, yet any safe move can
come. The final position is searched by tuong
to --depth with a fresh hash and kept only if |score| <= --margin
centipawns, the side to move is not in check, and the position (board and
side) is new. The same seed, count and build give the same file.

Lines are EPD, as tuong-match's `-openings file=F format=epd` reads them:
`<board> <side> - - id "tuong-openings N"; c0 "<moves>"; ce <score>;`.
Unlike tools/match/make_openings.py (60 hand-checked lines by Fairy-Stockfish for
matches) these are for data: thousands of cheap, different starts.
"""
import argparse
import math
import random
import sys
import time

from tuong.engine.board import Board, evaluate, static_exchange_at_least
from tuong.tools import doc_parser
from tuong.tools.cli import check_output, integer, real

MAX_PLIES = 1000          # a walk longer than a game would only run into its end
# Walks in a row that find only positions already met before generate()
# gives up: with short walks there are fewer distinct positions than asked.
GIVE_UP_AFTER = 1000


def _plies(text):
    low, _, high = text.partition("-")
    try:
        low, high = int(low), int(high or low)
    except ValueError:
        low = high = -1
    if not 0 <= low <= high <= MAX_PLIES:
        raise argparse.ArgumentTypeError(f"expected N or LOW-HIGH plies (at most {MAX_PLIES}), "
                                         f"got {text!r}")
    return low, high


def pick(rng, board, temperature):
    """A move of `board`, drawn as the module says."""
    moves = board.legal_moves()
    moves = [m for m in moves if static_exchange_at_least(board, m, 0)] or moves
    scores = []
    for move in moves:
        board.push(move)
        scores.append(-evaluate(board))
        board.pop()
    best = max(scores)
    weights = [math.exp((s - best) / temperature) for s in scores]
    return rng.choices(moves, weights)[0]


def random_line(rng, low, high, temperature=40):
    """A board after a random walk of low..high plies (see the module);
    None if the walk ran into a finished game."""
    board = Board()
    for _ in range(rng.randint(low, high)):
        if board.is_game_over():
            return None
        board.push(pick(rng, board, temperature))
    return board


def generate(count, plies=(6, 12), depth=6, margin=80, seed=1, progress=None, temperature=40):
    """[(fen, moves, score)]: `count` balanced openings (see the module)."""
    from tuong.engine.search import Searcher          # the engine's search, one thread
    rng = random.Random(seed)
    searcher = Searcher(16)
    kept, seen, tried, repeats = [], set(), 0, 0
    while len(kept) < count:
        tried += 1
        board = random_line(rng, *plies, temperature)
        if board is None or board.is_game_over() or board.in_check():
            continue
        key = " ".join(board.fen().split()[:2])
        if key in seen:
            repeats += 1
            if repeats >= GIVE_UP_AFTER:
                raise ValueError(f"only {len(kept)} of {count} openings found: walks of "
                                 f"{plies[0]}-{plies[1]} plies keep repeating positions")
            continue
        seen.add(key)
        repeats = 0
        searcher.clear()
        result = searcher.search(board, depth=depth)
        if result.mate is not None or result.score is None or abs(result.score) > margin:
            continue
        kept.append((board.fen(), list(board.move_stack), result.score))
        if progress:
            progress(len(kept), tried)
    return kept


def write_epd(lines, out):
    for number, (fen, moves, score) in enumerate(lines, 1):
        placement, side = fen.split()[:2]
        out.write(f'{placement} {side} - - id "tuong-openings {number}"; '
                  f'c0 "{" ".join(moves)}"; ce {score};\n')


def main(argv=None):
    parser = doc_parser("tuong-openings", __doc__)
    parser.add_argument("-o", "--output", required=True, help="EPD file to write ('-': stdout)")
    parser.add_argument("--count", type=integer(1), default=2000, help="openings (default 2000)")
    parser.add_argument("--plies", type=_plies, default=(6, 12), help="walk length (default 6-12)")
    parser.add_argument("--depth", type=integer(1), default=6,
                        help="check search depth (default 6)")
    parser.add_argument("--margin", type=integer(0), default=80,
                        help="keep |score| <= this many centipawns (default 80)")
    parser.add_argument("--temperature", type=real(0, strict=True), default=40,
                        help="centipawns: how far from the best static move a pick strays "
                             "(default 40)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    check_output(parser, args.output, "-o")
    start, shown = time.monotonic(), False

    def progress(kept, tried):
        nonlocal shown
        if kept % 100 == 0 or kept == args.count:
            shown = True
            print(f"\r{kept}/{args.count} openings ({tried} walks tried, "
                  f"{time.monotonic() - start:.0f} s)", end="", file=sys.stderr, flush=True)

    try:
        lines = generate(args.count, args.plies, args.depth, args.margin, args.seed, progress,
                         args.temperature)
    except ValueError as e:
        parser.error(e)
    finally:
        if shown:
            print(file=sys.stderr)          # ends the progress line
    if args.output == "-":
        write_epd(lines, sys.stdout)
    else:
        with open(args.output, "w", encoding="utf-8") as f:
            write_epd(lines, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())

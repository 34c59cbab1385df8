"""tuong-perft: count the leaves of the legal move tree.

    tuong-perft FEN DEPTH [--divide]
    tuong-perft startpos 5

The FEN may be given as one quoted argument or as its separate fields.
"""
import sys
import time

from tuong.engine.board import START_FEN, Board
from tuong.tools.cli import ArgumentParser

MAX_DEPTH = 100           # far beyond any perft that could finish


def main(argv=None):
    parser = ArgumentParser(prog="tuong-perft", description=__doc__.splitlines()[0])
    parser.add_argument("position", nargs="+", help="FEN (or 'startpos') followed by the depth")
    parser.add_argument("--divide", action="store_true",
                        help="print the count below each root move")
    args = parser.parse_args(argv)
    *fen_parts, depth_text = args.position
    depth = int(depth_text) if depth_text.isdecimal() and len(depth_text) <= 3 else -1
    if not fen_parts or not 0 <= depth <= MAX_DEPTH:
        parser.error(f"expected FEN DEPTH (0 to {MAX_DEPTH}), e.g. tuong-perft startpos 4")
    fen = " ".join(fen_parts)
    try:
        board = Board(START_FEN if fen == "startpos" else fen)
    except ValueError as err:
        parser.error(f"bad FEN: {err}")
    start = time.perf_counter()
    if args.divide and depth > 0:
        total = 0
        for move, count in board.divide(depth):
            print(f"{move}: {count}", flush=True)
            total += count
    else:
        total = board.perft(depth)
    elapsed = time.perf_counter() - start
    print(f"Time: {elapsed:.3f} s")
    print(f"Nodes per second: {int(total / elapsed) if elapsed > 0 else 0}")
    print(f"Nodes searched: {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

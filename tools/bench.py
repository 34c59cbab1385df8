"""tuong-bench: speed figures, always beside a peer measured in the same run.

    tuong-bench perft [--depth 5]        perft from the start vs Fairy-Stockfish
    tuong-bench search ...               (search benchmarks)

Machines here are noisy, so every figure is reported as a ratio against
Fairy-Stockfish run moments earlier on the same machine.
"""
import argparse
import re
import shutil
import subprocess
import sys
import time

from engine.board import START_FEN, Board

FAIRY_CANDIDATES = ["fairy-stockfish", "/usr/games/fairy-stockfish"]


def find_fairy(path=None):
    for candidate in ([path] if path else FAIRY_CANDIDATES):
        found = shutil.which(candidate)
        if found:
            return found
    return None


def fairy_perft(binary, depth, fen=START_FEN):
    """Seconds Fairy-Stockfish takes for `go perft depth`, and its count."""
    proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        proc.stdin.write("setoption name UCI_Variant value xiangqi\n"
                         f"position fen {fen}\nisready\n")
        proc.stdin.flush()
        for line in proc.stdout:
            if line.strip() == "readyok":
                break
        start = time.perf_counter()
        proc.stdin.write(f"go perft {depth}\n")
        proc.stdin.flush()
        for line in proc.stdout:
            match = re.match(r"Nodes searched:\s*(\d+)", line)
            if match:
                return time.perf_counter() - start, int(match.group(1))
        raise RuntimeError("Fairy-Stockfish ended without a perft count")
    finally:
        proc.kill()
        proc.wait()


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
    theirs, their_nodes = fairy_perft(fairy, args.depth)
    print(f"fairy-stockfish perft({args.depth}) = {their_nodes}  "
          f"{theirs:.3f} s  ({their_nodes / theirs / 1e6:.1f} M nodes/s)")
    if their_nodes != nodes:
        print("NODE COUNTS DIFFER")
        return 1
    print(f"ratio (fairy-stockfish time / tuong time): {theirs / ours:.1f}x")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="tuong-bench", description="speed benchmarks")
    sub = parser.add_subparsers(dest="what", required=True)
    perft = sub.add_parser("perft", help="perft from the start position vs Fairy-Stockfish")
    perft.add_argument("--depth", type=int, default=5)
    perft.add_argument("--repeat", type=int, default=3)
    perft.add_argument("--fairy", help="path of the fairy-stockfish binary")
    perft.set_defaults(run=bench_perft)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())

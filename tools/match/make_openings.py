"""Regenerate tools/data/openings.{pgn,epd}: short, balanced, varied openings
that lean toward no engine.

    python -m tuong.tools.match.make_openings [--engine /usr/games/fairy-stockfish] [--engine tuong]
                                  [--count 100] [--seed 1]

Each line is a random walk from the initial position of 4-8 plies (the
length is drawn uniformly). At every ply each judge engine searches with
MultiPV 6 to depth 8, and we pick uniformly among the moves that any judge
finds within 40 cp of its own best, so lines stay sound and differ, and no
engine's taste alone picks them. The final position is searched by every
judge to depth 14 and the line is kept only if every judge scores it within
50 cp and its position is new. Both files hold the same openings in the same
order: the PGN as moves from the start (for engines that cannot take a FEN,
like maxqi), the EPD as the resulting positions.
"""
import argparse
import random
from pathlib import Path

from tuong.engine.board import Board
from tuong.protocol.client import Limit, open_engine

DATA = Path(__file__).resolve().parents[1] / "data"
SPREAD_CP = 40
BALANCED_CP = 50


def candidates(engine, moves):
    """{move: score} for the engine's top moves after `moves` (depth 8)."""
    best = {}
    for info in engine.analyse((None, moves), Limit(depth=8)):
        if info.pv and info.cp is not None and info.multipv:
            best[info.multipv] = (info.depth, info.pv[0], info.cp)
    deepest = max(d for d, _, _ in best.values())
    return {move: cp for d, move, cp in best.values() if d == deepest}


def judged_score(engine, moves):
    engine.configure({"MultiPV": 1})
    score = engine.play((None, moves), Limit(depth=14)).info.cp
    engine.configure({"MultiPV": 6})
    return score


def make(engine_cmds, count, seed):
    rng = random.Random(seed)
    lines, seen = [], set()
    engines = [open_engine(cmd, "uci") for cmd in engine_cmds]
    try:
        for engine in engines:
            engine.configure({"MultiPV": 6, "Hash": 64})
        while len(lines) < count:
            moves = []
            for _ in range(rng.randint(4, 8)):
                good = set()
                for engine in engines:
                    scores = candidates(engine, moves)
                    top = max(scores.values())
                    good |= {m for m, cp in scores.items() if cp >= top - SPREAD_CP}
                moves.append(rng.choice(sorted(good)))
            board = Board()
            for move in moves:
                board.push(move)
            fen = " ".join(board.fen().split()[:2])
            if fen in seen or board.is_game_over():
                continue
            scores = [judged_score(engine, moves) for engine in engines]
            if all(score is not None and abs(score) <= BALANCED_CP for score in scores):
                seen.add(fen)
                lines.append((moves, board.fen(), scores))
                print(f"{len(lines):3}  {' '.join(f'{s:+4d}' for s in scores)}  {' '.join(moves)}")
    finally:
        for engine in engines:
            engine.close()
    return lines


def write(lines, names):
    with open(DATA / "openings.pgn", "w", encoding="utf-8") as f:
        for i, (moves, _, scores) in enumerate(lines, 1):
            judged = ", ".join(f"{name} {score:+d} cp" for name, score in zip(names, scores))
            f.write(f'[Event "tuong opening {i}"]\n[Variant "xiangqi"]\n'
                    f'[Annotator "depth 14: {judged}"]\n[Result "*"]\n\n')
            text = " ".join(f"{n // 2 + 1}. {m}" if n % 2 == 0 else m for n, m in enumerate(moves))
            f.write(f"{text} *\n\n")
    with open(DATA / "openings.epd", "w", encoding="utf-8") as f:
        for i, (moves, fen, _score) in enumerate(lines, 1):
            board, side = fen.split()[:2]
            f.write(f'{board} {side} - - id "tuong opening {i}"; c0 "{" ".join(moves)}";\n')


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", action="append",
                        help="a judge engine (UCI; repeat for several; default: fairy-stockfish "
                             "and tuong)")
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    engines = args.engine or ["/usr/games/fairy-stockfish", "tuong"]
    DATA.mkdir(exist_ok=True)
    write(make(engines, args.count, args.seed), [e.split("/")[-1].split()[0] for e in engines])


if __name__ == "__main__":
    main()

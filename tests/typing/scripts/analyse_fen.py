"""Analyse a position with tuong and print its best line in Chinese notation.

    python analyse_fen.py FEN [DEPTH]

Written from the documentation alone (docs/guide/scripting.md): a user's
script, type-checked by `mypy --strict` in tests/test_typing.py.
"""
import sys

from tuong.protocol.client import Limit, PositionRefused, open_engine
from tuong.tools.records import notation


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: analyse_fen.py FEN [DEPTH]", file=sys.stderr)
        return 2
    fen = argv[0]
    depth = int(argv[1]) if len(argv) > 1 else 8
    with open_engine("tuong") as engine:
        try:
            analysis = engine.analyse((fen, []), Limit(depth=depth))
        except PositionRefused as refusal:
            print(refusal, file=sys.stderr)
            return 1
        analysis.wait()
    info = analysis.info
    line = notation.write_line(fen, info.pv, "chinese")
    score = info.score.red() if info.score is not None else "no score"
    print(f"depth {info.depth}, {score} for Red: {' '.join(line)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

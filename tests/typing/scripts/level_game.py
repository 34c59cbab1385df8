"""tuong at level 1500 (Red) plays tuong at full strength (Black); the game is
saved as PGN.

    python level_game.py OUT.pgn [--depth N] [--max-plies N] [--elo ELO]

Written from the documentation alone (docs/guide/engine-match.md,
docs/guide/levels.md): a user's script, type-checked by `mypy --strict` in
tests/test_typing.py.
"""
import argparse
import sys
from pathlib import Path

from tuong.protocol.client import open_engine
from tuong.tools.match.referee import Player, Rules, TimeControl, play_game
from tuong.tools.records.pgn import format_game


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="tuong at a level against full strength")
    parser.add_argument("out", type=Path, help="the PGN file to write")
    parser.add_argument("--depth", type=int, default=4, help="plies searched a move (4)")
    parser.add_argument("--max-plies", type=int, default=60, help="a draw after so many (60)")
    parser.add_argument("--elo", type=int, default=1500, help="the level (1500)")
    args = parser.parse_args(argv)

    level_name = f"tuong (level {args.elo})"
    limit = TimeControl(depth=args.depth)
    with open_engine("tuong") as level, open_engine("tuong") as full:
        level.configure({"UCI_LimitStrength": True, "UCI_Elo": args.elo})
        game = play_game(Player(level_name, level, limit), Player("tuong", full, limit),
                         opening=(None, []), rules=Rules(max_plies=args.max_plies))
    print(game.result, game.termination, game.reason, f"({len(game.moves)} plies)")
    args.out.write_text(format_game(game, event=f"level {args.elo} against full strength"),
                        encoding="utf-8")
    print("saved to", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Rewrite a collection of games (PGN or XQF files, or folders of them) in WXF,
into one UTF-8 PGN file.

    python rewrite_wxf.py OUT.pgn PATH [PATH ...]

Written from the documentation alone (docs/guide/game-files.md): a user's
script, type-checked by `mypy --strict` in tests/test_typing.py.
"""
import sys

from tuong.tools.records import Problem, format_pgn, game_files, iter_games


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: rewrite_wxf.py OUT.pgn PATH [PATH ...]", file=sys.stderr)
        return 2
    out_path, inputs = argv[0], argv[1:]
    problems: list[Problem] = []
    games = 0
    with open(out_path, "w", encoding="utf-8") as out:
        for path in game_files(inputs):
            for record in iter_games(path, problems=problems):
                out.write(format_pgn(record, "wxf"))
                games += 1
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{games} games written in WXF to {out_path}, {len(problems)} left out")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

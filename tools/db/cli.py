"""tuong-db: a games database on SQLite.

    tuong-db import FILE|FOLDER...        PGN (any notation, encoding) and XQF, folders too
    tuong-db search [--player P] [--red R] [--black B] [--event E] [--from D] [--to D]
                    [--result R] [--ecco C] [--opening O] [--fen FEN] [--moves M...] [--json]
    tuong-db explore [--fen FEN] [--moves M...] [--json]
    tuong-db export [search options] [--notation N] [-o FILE]
    tuong-db info

Every command takes --db PATH (default: $XDG_DATA_HOME/tuong/games.sqlite,
else ~/.local/share/tuong/games.sqlite). docs/guide/database.md has the
whole story, and the counting rules of explore.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from tuong.tools.cli import ArgumentParser, check_output, integer, plural
from tuong.tools.db import importer, queries
from tuong.tools.db.store import DatabaseError, connect, default_path
from tuong.tools.records import FORMAT_NAMES, Record, format_pgn

_MOVE_CHARS = set("abcdefghi0123456789")


def _add_search_options(parser: ArgumentParser) -> None:
    parser.add_argument("--player", help="either player (a part of the name; 张 finds 張)")
    parser.add_argument("--red", help="Red's player (a part of the name)")
    parser.add_argument("--black", help="Black's player (a part of the name)")
    parser.add_argument("--event", help="the event (a part of its name)")
    parser.add_argument("--site", help="the site (a part of its name)")
    parser.add_argument("--from", dest="date_from", metavar="DATE",
                        help="played on or after DATE (YYYY, YYYY.MM or YYYY.MM.DD)")
    parser.add_argument("--to", dest="date_to", metavar="DATE",
                        help="played on or before DATE (2012 takes the whole year)")
    parser.add_argument("--result", choices=queries.RESULTS, help="the result, from Red's view")
    parser.add_argument("--ecco", help="an ECCO code or its prefix (C84, C8, C)")
    parser.add_argument("--opening", help="the opening's name (a part of it)")
    _add_position_options(parser)
    parser.add_argument("--limit", type=integer(1), default=None,
                        help="at most this many games (search: 100 unless given)")


def _add_position_options(parser: ArgumentParser) -> None:
    parser.add_argument("--fen", help="a position (FEN); with --moves, the moves from it")
    parser.add_argument("--moves", nargs="+", default=[], metavar="MOVE",
                        help="moves in coordinates (h2e2, ranks 0-9) from --fen or the start")


def _position(args) -> tuple[str | None, list[str]] | None:
    if args.fen is None and not args.moves:
        return None
    for move in args.moves:
        if len(move) != 4 or not set(move) <= _MOVE_CHARS:
            raise queries.QueryError(f"{move!r} is not a coordinate move (h2e2, ranks 0-9)")
    return args.fen, args.moves


def _search_of(args, default_limit: int | None) -> queries.Search:
    return queries.Search(player=args.player, red=args.red, black=args.black, event=args.event,
                          site=args.site, date_from=args.date_from, date_to=args.date_to,
                          result=args.result, ecco=args.ecco, opening=args.opening,
                          position=_position(args),
                          limit=args.limit if args.limit is not None else default_limit)


def parser() -> ArgumentParser:
    """tuong-db's argument parser."""
    top = ArgumentParser(prog="tuong-db", description="A database of Xiangqi games: import "
                         "record files, search them, explore a position's moves from them, "
                         "export them (docs/guide/database.md).")
    top.add_argument("--db", default=None, metavar="PATH",
                     help=f"the database file (default {default_path()})")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    imp = commands.add_parser("import", help="import PGN and XQF files and folders")
    imp.add_argument("paths", nargs="+", metavar="FILE|FOLDER", help="record files or folders")
    imp.add_argument("--workers", type=integer(1, 64), default=None,
                     help="processes reading files (default: the machine's cores)")
    imp.add_argument("--db", default=argparse.SUPPRESS, metavar="PATH",
                     help="the database file")
    find = commands.add_parser("search", help="the games that match every option given")
    _add_search_options(find)
    find.add_argument("--json", action="store_true", help="a JSON list of games")
    find.add_argument("--db", default=argparse.SUPPRESS, metavar="PATH",
                     help="the database file")
    explore = commands.add_parser("explore", help="the moves played from a position, with scores")
    _add_position_options(explore)
    explore.add_argument("--json", action="store_true",
                         help='{"games": N, "moves": [{"move": ..., "games": n, "red": w, '
                              '"draw": d, "black": l, ...}]}')
    explore.add_argument("--db", default=argparse.SUPPRESS, metavar="PATH",
                     help="the database file")
    export = commands.add_parser("export", help="the games of a search as PGN")
    _add_search_options(export)
    export.add_argument("--notation", choices=sorted(FORMAT_NAMES), default="chinese",
                        help="the notation of the moves (default chinese)")
    export.add_argument("-o", "--output", default="-", help="the PGN file (default stdout)")
    export.add_argument("--db", default=argparse.SUPPRESS, metavar="PATH",
                     help="the database file")
    info = commands.add_parser("info", help="how many games, positions and files")
    info.add_argument("--db", default=argparse.SUPPRESS, metavar="PATH",
                     help="the database file")
    return top


def _run_import(connection, args) -> int:
    missing = [path for path in args.paths if not os.path.exists(path)]
    if missing:
        print(f"tuong-db: error: no such file or folder: {missing[0]}", file=sys.stderr)
        return 2
    total = importer.count_files(args.paths)
    report = importer.import_files(connection, args.paths, workers=args.workers,
                                   progress=importer.ProgressLine(total))
    for problem in report.problems:
        print(f"not imported: {problem}", file=sys.stderr)
    print(f"{plural(report.games, 'game')} added from {plural(report.files, 'file')} "
          f"({plural(report.duplicates, 'game')} already in, "
          f"{plural(report.resumed, 'file')} already imported, "
          f"{plural(report.same_bytes, 'file')} the same as another, "
          f"{plural(len(report.problems), 'game')} not read)")
    return 1 if report.problems else 0


def _print_games(games, as_json: bool) -> None:
    if as_json:
        print(json.dumps([game.summary() for game in games], ensure_ascii=False, indent=1))
        return
    for game in games:
        print("\t".join([str(game.id), game.date or "?", game.red or "?", game.black or "?",
                         game.result, game.ecco or "", game.event or ""]))


def _print_exploration(found: queries.Exploration, as_json: bool) -> None:
    if as_json:
        print(json.dumps(found.as_json(), ensure_ascii=False))
        return
    print(f"{plural(found.games, 'game')}")
    for move in found.moves:
        scored = move.red + move.draw + move.black
        red_share = (move.red + move.draw / 2) / scored * 100 if scored else 0.0
        year = f"{move.average_year:.0f}" if move.average_year is not None else "?"
        print(f"{move.move}\t{move.games}\t+{move.red} ={move.draw} -{move.black}\t"
              f"{red_share:.0f}%\t{year}\t{move.last_date or '?'}")


def _export(connection, args) -> int:
    games = queries.search(connection, _search_of(args, None))
    texts = []
    for game in games:
        tags = dict(game.tags)
        if game.fen:
            tags["FEN"] = game.fen
        record = Record(tags, game.moves, [None] * len(game.moves), game.result)
        texts.append(format_pgn(record, args.notation))
    text = "\n".join(texts)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"{plural(len(games), 'game')} written to {args.output}", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """tuong-db's entry point: the exit status (2 for a bad argument or question)."""
    top = parser()
    args = top.parse_args(argv)
    if args.command == "export" and args.output != "-":
        check_output(top, args.output, "-o")
    try:
        connection = connect(args.db, create=args.command == "import")
    except DatabaseError as error:
        print(f"tuong-db: error: {error}", file=sys.stderr)
        return 2
    try:
        if args.command == "import":
            return _run_import(connection, args)
        if args.command == "search":
            _print_games(queries.search(connection, _search_of(args, 100)), args.json)
        elif args.command == "explore":
            _position(args)                  # the moves' form checked, a clear error
            _print_exploration(queries.explore(connection, args.fen, args.moves), args.json)
        elif args.command == "export":
            return _export(connection, args)
        else:
            _print_info(connection)
    except queries.QueryError as error:
        print(f"tuong-db: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("tuong-db: interrupted (what was finished is kept; run it again to go on)",
              file=sys.stderr)
        return 130
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    finally:
        connection.close()
    return 0


def _print_info(connection) -> None:
    games, positions, files = (connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                               for table in ("games", "positions", "files"))
    print(f"{plural(games, 'game')}, {plural(positions, 'position')} "
          f"(first arrivals), {plural(files, 'file')} imported")


if __name__ == "__main__":
    sys.exit(main())

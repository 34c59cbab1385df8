"""A database of Xiangqi games on SQLite: import record files, search
games (players, events, dates, results, ECCO codes, openings, positions),
explore a position's moves from master games, export to PGN.

    >>> from tuong.tools import db
    >>> connection = db.connect("games.sqlite")
    >>> report = db.import_files(connection, ["games/"])
    >>> db.explore(connection, moves=["h2e2"]).as_json()["games"]

The command line is `tuong-db` (tools/db/cli.py); docs/guide/database.md
says what each command counts.
"""
from tuong.tools.db.fold import fold
from tuong.tools.db.importer import ImportReport, import_files
from tuong.tools.db.queries import (Exploration, MoveStats, QueryError, Search, count, explore,
                                    position_key, search)
from tuong.tools.db.store import DatabaseError, Game, connect, default_path, games_by_id

__all__ = ["DatabaseError", "Exploration", "Game", "ImportReport", "MoveStats", "QueryError",
           "Search", "connect", "count", "default_path", "explore", "fold", "games_by_id",
           "import_files", "position_key", "search"]

"""tuong-web's games database: the Database tab's messages, the explorer's
master moves, the library kept in the database, and a file of many games
offered as a list (docs/web-protocol.md, "The database").

The Session (tools/web/session.py) takes these handlers as a mixin. Each
session opens its own connection to the database (`tuong-web --db PATH`,
tuong.tools.db) on first use, on the event loop's thread where its
handlers run: searches and explorations take a few milliseconds. An
import into the database runs on the session's chores thread with a
connection of its own. A database that cannot be opened is said in the
page's language (`db_info`, and an `error` for a message that needs it);
the rest of the page works without it, and the page then keeps its
library in the browser.
"""
from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tuong.engine.games import GAMES
from tuong.tools import db, records
from tuong.tools.db import ecco, library
from tuong.tools.records import notation as notations
from tuong.tools.records.notation import Notation
from tuong.tools.records.opening_names import opening_name
from tuong.tools.web import hant
from tuong.tools.web.game import (VARIANTS, Refused, file_bytes, record_game, text_field,
                                  tree_from_saved)

MAX_ROWS = 200                   # games a search answers at once
MAX_EXPORT = 1000                # games one export writes
MAX_LISTED = 2000                # games of one file offered as a list
MAX_OFFSET = 10_000_000
MAX_FIELD = 100                  # characters of a search field
ECCO_PLIES = 6                   # from this many plies the opening is named by its ECCO code
SEARCH_FIELDS = ("player", "red", "black", "event", "ecco", "date_from", "date_to")
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
START = GAMES["xiangqi"]().fen()


def opening_label(moves: list[str], lang: str) -> str | None:
    """The opening's name of a line from the start position: its ECCO code
    and name in `lang` (the classifier learned from master games,
    tuong.tools.db.ecco) once the line has ECCO_PLIES plies, else (or
    without a code) the opening family's name."""
    if len(moves) >= ECCO_PLIES:
        code = ecco.shipped().classify(moves)
        if code:
            return f"{code} {ecco.shipped().name(code, lang)}"
    named = opening_name(moves[:8], lang)
    if named is None and moves:
        code = ecco.shipped().classify(moves)
        return f"{code} {ecco.shipped().name(code, lang)}" if code else None
    return named


def whole(value: Any, name: str, low: int, high: int, default: int | None = None) -> int:
    """A whole number in [low, high] (`default` when absent), else Refused."""
    if value is None and default is not None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise Refused(f"{name} must be a whole number from {low} to {high}",
                      key="{name} must be a whole number from {low} to {high}",
                      params={"name": name, "low": low, "high": high})
    return value


def _import_into(path: str, data: bytes, name: str
                 ) -> tuple[int, int, list[str], list[records.Record]]:
    """Read a file's games and store them in the database at `path`, with a
    connection of this thread: (added, duplicates, problems, the games read).
    Pure of the session: runs on its chores thread."""
    found, problems = records.read_bytes(data, name)
    said = [str(problem) for problem in problems if not problem.game_kept]
    rows = []
    for number, record in enumerate(found, 1):
        try:
            rows.append(db.importer.game_row(record, f"{name}#{number}"))
        except ValueError as error:          # a position the board refuses
            said.append(f"{name}, game {record.title()}: {error}")
    connection = db.connect(path)
    try:
        with connection:
            added, duplicates = db.importer.store_games(connection, rows)
    finally:
        connection.close()
    return added, duplicates, said, found[:MAX_LISTED]


def _read_all(job: tuple) -> list[records.Record]:
    """Every game of a file (its `import` job), for the list to choose from."""
    reader, *args = job
    if reader is records.read_bytes:
        found, _ = records.read_bytes(*args)
    elif reader is records.read_pgn:
        found, _ = records.read_pgn(*args)
    else:
        found = []
    return found[:MAX_LISTED]


def _study(record: records.Record, notation: str):
    """(tree, tags) of a record to study, Refused when a page cannot hold it."""
    game = record_game(record, notation)
    if game is None:
        raise Refused("cannot import: the game is larger than a page keeps",
                      key="cannot import", detail="the game is larger than a page keeps")
    return game


class DatabaseMessages:
    """The database's messages, for the Session (which supplies `emit`,
    `state`, `_chore`, `_set_game`, `_changed`, `_board`, `_keep_previous`,
    `notation`, `lang`, `cursor`, `variant`)."""

    # What the Session supplies, as the type checker should see it.
    variant: str
    notation: Notation
    lang: str
    engine_side: str | None
    emit: Callable[[dict], None]
    if TYPE_CHECKING:
        def _board(self, node: Any) -> Any: ...
        def _keep_previous(self) -> None: ...
        def _set_game(self, *args: Any, **kwargs: Any) -> None: ...
        async def _chore(self, function: Any, *args: Any) -> Any: ...

    def _init_database(self, path: str | os.PathLike[str] | None) -> None:
        """`path`: the games database (None: the page has none)."""
        self.db_path = None if path is None else os.fspath(path)
        self._db: sqlite3.Connection | None = None
        self._db_problem: str | None = None if path is not None else "no database"
        self._masters_cache: dict[tuple[str, str, str], dict] = {}
        self._file_records: list[records.Record] = []
        self._importing = False

    def _database(self, needed: bool = True) -> sqlite3.Connection | None:
        """The session's connection (opened on first use), or None when the
        database cannot be opened (Refused instead when `needed`)."""
        if self._db is None and self.db_path is not None and self._db_problem is None:
            try:
                self._db = db.connect(self.db_path)
            except db.DatabaseError as error:
                self._db_problem = str(error)
        if self._db is None and needed:
            raise Refused("the games database cannot be opened",
                          detail=self._db_problem if self.db_path is not None else None)
        return self._db

    def _close_database(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    # -- the explorer ------------------------------------------------------------

    def _masters(self, board) -> dict | None:
        """The database's moves from the shown position (the explorer), with
        counts and scores from Red's view; None without a database."""
        if self.variant != "xiangqi":
            return None
        connection = self._database(needed=False)
        if connection is None:
            return None
        fen = board.fen()
        key = (fen, self.notation, self.lang)
        if key not in self._masters_cache:
            try:
                found = db.explore(connection, fen)
            except (db.QueryError, sqlite3.Error):
                return None
            moves = []
            for stats in found.moves:
                if stats.move not in board.legal_moves():
                    continue
                text = notations.write(board, stats.move, self.notation)
                moves.append({"move": stats.move, "text": hant.for_lang(text, self.lang),
                              "games": stats.games, "red": stats.red, "draw": stats.draw,
                              "black": stats.black, "average_year": stats.average_year,
                              "last_date": stats.last_date})
            if len(self._masters_cache) > 500:
                self._masters_cache.clear()
            self._masters_cache[key] = {"games": found.games, "moves": moves}
        return self._masters_cache[key]

    # -- the Database tab --------------------------------------------------------

    async def on_db_info(self, message):
        """Whether the page has a database, and how many games it holds."""
        connection = self._database(needed=False)
        answer: dict[str, Any] = {"type": "db_info", "available": connection is not None,
                                  "path": self.db_path, "games": 0, "library": 0}
        if connection is not None:
            answer["games"] = db.count(connection, db.Search(limit=None))
            answer["library"] = library.count(connection)
        else:
            answer.update(self._refusal(Refused(
                "the games database cannot be opened",
                detail=self._db_problem if self.db_path is not None else None)))
            answer["type"] = "db_info"
        self.emit(answer)

    def _search_of(self, message) -> db.Search:
        fields: dict[str, Any] = {}
        for name in SEARCH_FIELDS:
            value = message.get(name)
            if value is not None:
                value = text_field(value, name, MAX_FIELD).strip()
                fields[name] = value or None
        result = message.get("result") or None
        if result is not None and result not in RESULTS:
            raise Refused(f"result must be one of {', '.join(RESULTS)}",
                          key="result must be one of {results}",
                          params={"results": ", ".join(RESULTS)})
        position = message.get("position", False)
        if not isinstance(position, bool):
            raise Refused("position must be true or false")
        where: tuple[str, list[str]] | None = None
        if position:
            if self.variant != "xiangqi":
                raise Refused("a position search is for Xiangqi games")
            where = (self._board(self.cursor).fen(), [])
        return db.Search(result=result, position=where,
                         limit=whole(message.get("limit"), "limit", 1, MAX_ROWS, 50),
                         offset=whole(message.get("offset"), "offset", 0, MAX_OFFSET, 0),
                         **fields)

    def _ref(self, message) -> int | None:
        ref = message.get("ref")
        return ref if isinstance(ref, int) and not isinstance(ref, bool) else None

    async def on_db_search(self, message):
        """The games that match the search fields, `limit` of them from `offset`."""
        query = self._search_of(message)
        connection = self._database()
        try:
            games = db.search(connection, query)
            total = db.count(connection, query)
        except db.QueryError as error:
            raise Refused(f"the search cannot be answered: {error}",
                          key="the search cannot be answered", detail=str(error)) from None
        model = ecco.shipped()
        rows = []
        for game in games:
            row = game.summary()
            code = game.ecco or (model.classify(game.moves, game.fen) if game.moves else None)
            row["ecco"] = code
            row["ecco_name"] = model.name(code, self.lang) if code else None
            rows.append(row)
        self.emit({"type": "db_games", "ref": self._ref(message), "total": total,
                   "offset": query.offset, "limit": query.limit, "games": rows})

    def _game_ids(self, message, field: str = "ids", most: int = MAX_EXPORT) -> list[int]:
        ids = message.get(field)
        if not isinstance(ids, list) or not 1 <= len(ids) <= most or any(
                isinstance(i, bool) or not isinstance(i, int) for i in ids):
            raise Refused(f"{field} must be a list of 1 to {most} game ids",
                          key="{name} must be a list of 1 to {n} game ids",
                          params={"name": field, "n": most})
        return ids

    async def on_db_open(self, message):
        """Load a game of the database for study (as an import)."""
        game_id = whole(message.get("id"), "id", 1, 2**62)
        found = list(db.games_by_id(self._database(), [game_id]))
        if not found:
            raise Refused("no such game in the database")
        game = found[0]
        tags = dict(game.tags)
        if game.fen:
            tags.update(FEN=game.fen, SetUp="1")
        record = records.Record(tags, game.moves, [None] * len(game.moves), game.result)
        tree, headers = await self._chore(_study, record, self.notation)
        self._load_study(tree, headers)
        await self._changed()

    def _load_study(self, tree, headers) -> None:
        self._keep_previous()
        self.engine_side = None          # a game to study: the engine waits
        self._set_game("xiangqi", tree, headers)
        self.cursor = self.play = tree.root.tip()

    async def on_db_export(self, message):
        """The chosen games as one PGN file, in the page's notation."""
        ids = self._game_ids(message)
        games = list(db.games_by_id(self._database(), ids))
        if not games:
            raise Refused("no such game in the database")
        writable = self.notation if self.notation != "coords" else "iccs"
        texts = []
        for game in games:
            tags = dict(game.tags)
            if game.fen:
                tags["FEN"] = game.fen
            record = records.Record(tags, game.moves, [None] * len(game.moves), game.result)
            texts.append(records.format_pgn(record, writable))
        text = "\n".join(texts)
        if self.lang == "zh-Hant" and writable == "chinese":
            text = hant.movetext(text)
        self.emit({"type": "pgn", "name": "tuong-games.pgn", "text": text,
                   "games": len(games)})

    async def on_db_import(self, message):
        """Every game of a file into the database (duplicates kept once)."""
        name = text_field(message.get("name", "games.pgn"), "name")
        raw = file_bytes(message.get("data"))
        self._database()
        if self._importing:
            raise Refused("an import into the database is under way: wait for it to finish")
        self._importing = True
        try:
            added, duplicates, problems, found = await self._chore(
                _import_into, self.db_path, raw, os.path.basename(name) or "games.pgn")
        except db.DatabaseError as error:
            raise Refused("the games database cannot be opened", detail=str(error)) from None
        finally:
            self._importing = False
        self._masters_cache.clear()
        self.emit({"type": "db_imported", "name": name, "games": added,
                   "duplicates": duplicates, "problems": len(problems),
                   "said": problems[:3]})
        if len(found) > 1:
            self._list_file(found, name)
        await self._changed(game=False)          # the explorer counts the new games

    # -- a file of many games ----------------------------------------------------

    async def _offer_file(self, job: tuple, name: str) -> None:
        """After an import of a file with several games: the list of them
        (`file_games`), to choose one from (`import_pick`)."""
        self._list_file(await self._chore(_read_all, job), name)

    def _list_file(self, found: list[records.Record], name: str) -> None:
        """The games of a file, as a list to choose from (`file_games`)."""
        self._file_records = found
        model = ecco.shipped()
        games = []
        for index, record in enumerate(found):
            code = (record.tags.get("ECCO") or "").strip().upper() or \
                (model.classify(record.moves, record.fen) if record.moves else None)
            games.append({"index": index, "red": record.red, "black": record.tags.get("Black"),
                          "date": record.tags.get("Date"), "event": record.tags.get("Event"),
                          "result": record.result, "ecco": code, "plies": len(record.moves)})
        self.emit({"type": "file_games", "name": name, "games": games})

    async def on_import_pick(self, message):
        """Load game `index` of the file last imported with several games."""
        if not self._file_records:
            raise Refused("no list of games to choose from: import the file again")
        index = whole(message.get("index"), "index", 0, len(self._file_records) - 1)
        tree, headers = await self._chore(_study, self._file_records[index], self.notation)
        self._load_study(tree, headers)
        await self._changed()

    # -- the library -------------------------------------------------------------

    async def on_library_list(self, message):
        """The library's games, the last changed first (at most `limit`)."""
        connection = self._database(needed=False)
        limit = whole(message.get("limit"), "limit", 1, MAX_ROWS, 100)
        if connection is None:
            self.emit({"type": "library", "available": False, "games": [], "total": 0})
            return
        self.emit({"type": "library", "available": True, "total": library.count(connection),
                   "games": [entry.as_json() for entry in library.listing(connection, limit)]})

    async def on_library_save(self, message):
        """Keep a page's game: in its row `id` (updated in place) or a new row."""
        ref = self._ref(message)
        row = message.get("id")
        if row is not None:
            row = whole(row, "id", 1, 2**62)
        title = text_field(message.get("title", ""), "title", library.MAX_TITLE).strip()
        saved = message.get("saved")
        if not isinstance(saved, dict) or saved.get("variant") not in VARIANTS:
            raise Refused("saved must be a game as the page keeps it")
        tree_from_saved(saved)           # its shape (the moves are checked when it opens)
        connection = self._database(needed=False)
        if connection is None:
            self.emit({"type": "library_saved", "available": False, "id": None, "ref": ref})
            return
        try:
            row = library.save(connection, saved, title or "?", row)
        except ValueError:
            raise Refused("the game is too large to keep in the library") from None
        self.emit({"type": "library_saved", "available": True, "id": row, "ref": ref})

    async def on_library_delete(self, message):
        """Remove a game from the library."""
        row = whole(message.get("id"), "id", 1, 2**62)
        deleted = library.delete(self._database(), row)
        self.emit({"type": "library_deleted", "id": row, "deleted": deleted})

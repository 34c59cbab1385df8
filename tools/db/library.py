"""The browser's library in the games database: one row a game a page
keeps (tuong-web, tools/web/database.py).

A row holds the game as the page keeps it (`saved`: the JSON object of
docs/web-protocol.md's `restore`), a title and when it was made and last
changed. Each page keeps its own game in its own row, updated in place by
that page, so two pages open at once never write over each other's game;
a row is never reused for another game.

    >>> from tuong.tools import db
    >>> from tuong.tools.db import library
    >>> connection = db.connect("games.sqlite")
    >>> row = library.save(connection, {"variant": "xiangqi", "nodes": []}, "a game")
    >>> library.get(connection, row).title
    'a game'
"""
from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from typing import Any

MAX_TITLE = 200                  # characters of a title
MAX_SAVED = 4 * 1024 * 1024      # characters of a saved game's JSON


@dataclass
class Entry:
    """One game of the library."""
    id: int
    title: str
    saved: dict[str, Any]
    created: float
    updated: float

    def as_json(self) -> dict[str, object]:
        """The entry as tuong-web's `library` message lists it."""
        return {"id": self.id, "title": self.title, "saved": self.saved,
                "created": self.created, "updated": self.updated,
                "date": time.strftime("%Y-%m-%d %H:%M", time.localtime(self.updated))}


def _entry(row: tuple[Any, ...]) -> Entry:
    id_, title, saved, created, updated = row
    try:
        game = json.loads(saved)
    except ValueError:
        game = {}
    return Entry(int(id_), str(title), game if isinstance(game, dict) else {},
                 float(created), float(updated))


def save(connection: sqlite3.Connection, saved: dict[str, Any], title: str,
         id: int | None = None) -> int:
    """Keep `saved` under `title`: in row `id` when it exists (updated in
    place), else in a new row. Returns the row's id. Raises ValueError for a
    title or a game too large."""
    text = json.dumps(saved, ensure_ascii=False, separators=(",", ":"))
    if len(text) > MAX_SAVED or len(title) > MAX_TITLE:
        raise ValueError("a library game or its title is too large")
    now = time.time()
    with connection:
        if id is not None:
            cursor = connection.execute(
                "UPDATE library SET title = ?, saved = ?, updated = ? WHERE id = ?",
                (title, text, now, id))
            if cursor.rowcount:
                return id
        cursor = connection.execute(
            "INSERT INTO library(title, saved, created, updated) VALUES (?, ?, ?, ?)",
            (title, text, now, now))
    return int(cursor.lastrowid or 0)


def get(connection: sqlite3.Connection, id: int) -> Entry | None:
    """The entry of row `id`, or None."""
    row = connection.execute("SELECT id, title, saved, created, updated FROM library "
                             "WHERE id = ?", (id,)).fetchone()
    return _entry(row) if row else None


def listing(connection: sqlite3.Connection, limit: int = 100, offset: int = 0) -> list[Entry]:
    """The library's games, the last changed first."""
    rows = connection.execute("SELECT id, title, saved, created, updated FROM library "
                              "ORDER BY updated DESC, id DESC LIMIT ? OFFSET ?",
                              (limit, offset)).fetchall()
    return [_entry(row) for row in rows]


def count(connection: sqlite3.Connection) -> int:
    """How many games the library holds."""
    return int(connection.execute("SELECT count(*) FROM library").fetchone()[0])


def delete(connection: sqlite3.Connection, id: int) -> bool:
    """Remove row `id`; whether it was there."""
    with connection:
        return connection.execute("DELETE FROM library WHERE id = ?", (id,)).rowcount > 0

"""The games database's file: an SQLite database (the standard library's
sqlite3) with one row a game, one row a position a game reaches, and one
row a file imported.

Where it lives: `--db PATH`, else $XDG_DATA_HOME/tuong/games.sqlite, else
~/.local/share/tuong/games.sqlite.

The positions table holds, for each game, each distinct position at its
first arrival there (keyed by tuong's Zobrist key, so transpositions meet),
with the move played from that arrival, the game's outcome and its date:
the explorer counts from that table alone.
"""
from __future__ import annotations

import json
import os
import re
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

SCHEMA_VERSION = "1"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS games(
    id INTEGER PRIMARY KEY,
    red TEXT, black TEXT, event TEXT, site TEXT, date TEXT, result TEXT NOT NULL,
    ecco TEXT, opening TEXT,
    day INTEGER,               -- YYYYMMDD, an unknown month or day 0; NULL without a year
    fen TEXT,                  -- NULL from the standard start
    moves TEXT NOT NULL,       -- coordinates (ranks 0-9), one space between
    plies INTEGER NOT NULL,
    tags TEXT NOT NULL,        -- every tag of the record, in its order (JSON pairs)
    source TEXT,               -- the file and game number it was first read from
    red_f TEXT, black_f TEXT, event_f TEXT, site_f TEXT, opening_f TEXT,   -- folded (fold.py)
    line BLOB NOT NULL         -- a hash of the start and the moves (importer.same_game)
);
CREATE INDEX IF NOT EXISTS games_line ON games(line);
CREATE INDEX IF NOT EXISTS games_day ON games(day);
CREATE INDEX IF NOT EXISTS games_ecco ON games(ecco);
CREATE TABLE IF NOT EXISTS positions(
    key INTEGER NOT NULL,      -- the Zobrist key (as a signed 64-bit integer)
    game INTEGER NOT NULL,
    ply INTEGER NOT NULL,      -- plies played before the first arrival
    next INTEGER,              -- the move played from that arrival (from * 90 + to); NULL: the end
    outcome INTEGER,           -- 1 Red won, 0 draw, -1 Black won, NULL unknown
    day INTEGER,
    PRIMARY KEY (key, game)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS files(
    path TEXT PRIMARY KEY, size INTEGER, mtime REAL, digest BLOB, games INTEGER,
    duplicates INTEGER, problems INTEGER
);
CREATE INDEX IF NOT EXISTS files_digest ON files(digest);
CREATE TABLE IF NOT EXISTS library(  -- the browser's library (tools/db/library.py)
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    saved TEXT NOT NULL,       -- the game as the page keeps it (JSON, docs/web-protocol.md)
    created REAL NOT NULL,     -- seconds since the epoch
    updated REAL NOT NULL
);
"""
OUTCOMES = {"1-0": 1, "1/2-1/2": 0, "0-1": -1}
RESULT_OF = {1: "1-0", 0: "1/2-1/2", -1: "0-1"}
_US_DATE = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")           # 4/17/1996
_DATE = re.compile(r"(\d{4})(?=\d{4}(?!\d))(\d{2})(\d{2})"       # 20091122
                   r"|(\d{4})(?:\s*[.\-/年]\s*(\d{1,2}))?(?:\s*[.\-/月]\s*(\d{1,2}))?")


class DatabaseError(Exception):
    """The database file cannot be opened or is not a tuong games database."""


def default_path() -> Path:
    """$XDG_DATA_HOME/tuong/games.sqlite, or ~/.local/share/tuong/games.sqlite."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"),
                                                           ".local", "share")
    return Path(base) / "tuong" / "games.sqlite"


def day_of(date: str | None) -> int | None:
    """A record's date as YYYYMMDD (unknown parts 0), None without a year:
    '1955.5' is 19550500, '2012.10.03' 20121003, '2012年10月3日' 20121003,
    '4/17/1996' (month first) 19960417."""
    us = _US_DATE.search(date or "")
    found = _DATE.search(date or "")
    if us:
        month, day, year = (int(part) for part in us.groups())
    elif found:
        parts = found.groups()
        parts = parts[:3] if parts[0] else parts[3:]
        year, month, day = (int(part) if part else 0 for part in parts)
    else:
        return None
    if not 1000 <= year <= 2999:
        return None
    month = month if month <= 12 else 0
    day = day if day <= 31 else 0
    return year * 10000 + month * 100 + day


_FILES = "abcdefghi"


def encode_move(move: str) -> int:
    """A coordinate move as the positions table holds it: from * 90 + to,
    a square as file + 9 * rank (a0 is 0, i9 is 89)."""
    start = _FILES.index(move[0]) + 9 * int(move[1])
    return start * 90 + _FILES.index(move[2]) + 9 * int(move[3])


def decode_move(code: int) -> str:
    """The coordinate move of encode_move's number."""
    start, end = divmod(code, 90)
    return f"{_FILES[start % 9]}{start // 9}{_FILES[end % 9]}{end // 9}"


def signed_key(key: int) -> int:
    """A 64-bit Zobrist key as SQLite's signed INTEGER."""
    return key - (1 << 64) if key >= 1 << 63 else key


@dataclass
class Game:
    """One game of the database (the row of `games`)."""
    id: int
    """The game's row id in the database."""
    red: str | None
    """Red's player."""
    black: str | None
    """Black's player."""
    event: str | None
    """The event."""
    site: str | None
    """The site."""
    date: str | None
    """The date as the record wrote it."""
    result: str
    """'1-0', '0-1', '1/2-1/2' or '*'."""
    ecco: str | None
    """The ECCO code of its record, if it had one."""
    opening: str | None
    """The record's opening name, if it had one."""
    fen: str | None
    """Its start position; None for the standard start."""
    moves: list[str]
    """Its moves in coordinates (ranks 0-9)."""
    tags: list[tuple[str, str]] = field(default_factory=list)
    """Every tag of its record, in order ([Red] for Red, as Xiangqi programs write it)."""
    source: str | None = None
    """The file and game number it was first read from (path#n)."""

    def summary(self) -> dict[str, object]:
        """The fields a list of games shows (tuong-db search --json)."""
        return {"id": self.id, "red": self.red, "black": self.black, "event": self.event,
                "site": self.site, "date": self.date, "result": self.result,
                "ecco": self.ecco, "opening": self.opening, "plies": len(self.moves)}


GAME_COLUMNS = "id, red, black, event, site, date, result, ecco, opening, fen, moves, tags, source"


def game_from_row(row: Sequence[object]) -> Game:
    """A Game from a row of GAME_COLUMNS."""
    (id_, red, black, event, site, date, result, ecco, opening, fen, moves, tags,
     source) = row
    return Game(int(id_), red, black, event, site, date, str(result), ecco,   # type: ignore
                opening, fen, str(moves).split(), [tuple(pair)  # type: ignore
                                                   for pair in json.loads(str(tags))],
                source)  # type: ignore[arg-type]


def connect(path: str | os.PathLike[str] | None = None, *,
            create: bool = True) -> sqlite3.Connection:
    """An open connection to the games database at `path` (default_path()
    when None), its tables made when `create`. Raises DatabaseError for a
    file that is not such a database or cannot be opened."""
    path = Path(path) if path is not None else default_path()
    if not create and not path.exists():
        raise DatabaseError(f"{path}: no such database (tuong-db import makes one)")
    try:
        if create:
            path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(str(path))
        connection.execute("PRAGMA cache_size = -200000")      # 200 MB: imports insert at random
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = NORMAL")
        connection.executescript(_SCHEMA)
        version = connection.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if version is None:
            with connection:
                connection.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        elif version[0] != SCHEMA_VERSION:
            raise DatabaseError(f"{path}: a games database of schema {version[0]}, "
                                f"this tuong reads {SCHEMA_VERSION}")
    except (sqlite3.DatabaseError, OSError) as error:
        raise DatabaseError(f"{path}: cannot open as a games database: {error}") from None
    return connection


def games_by_id(connection: sqlite3.Connection, ids: Sequence[int]) -> Iterator[Game]:
    """The games of `ids`, in that order (ids not in the database left out)."""
    for start in range(0, len(ids), 500):
        chunk = list(ids[start:start + 500])
        rows = connection.execute(
            f"SELECT {GAME_COLUMNS} FROM games WHERE id IN ({','.join('?' * len(chunk))})",
            chunk).fetchall()
        by_id = {row[0]: row for row in rows}
        for id_ in chunk:
            if id_ in by_id:
                yield game_from_row(by_id[id_])

"""Questions to the games database: which games (search) and, for a
position, what was played from it and how it scored (explore).

Counting, as the explorer does it: a game counts once for a position, at
its first arrival there (a game that comes back to a position is not
counted again), and its next move is the move played from that arrival. A
game that ends at its first arrival counts among the position's games and
under no move. Scores are from Red's view: Red wins, draws, Black wins;
games with an unknown result (`*`) count in `games` only.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field

from tuong.engine.board import Board
from tuong.tools.db.fold import fold
from tuong.tools.db.store import GAME_COLUMNS, Game, decode_move, day_of, game_from_row, signed_key

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


class QueryError(ValueError):
    """A search or explore request that cannot be answered as given (a
    malformed FEN, an illegal move, a bad date or result)."""


def position_key(fen: str | None = None, moves: Sequence[str] = ()) -> int:
    """The database's key of the position after `moves` (coordinates) from
    `fen` (the start position when None). Raises QueryError."""
    try:
        board = Board(fen) if fen else Board()
    except ValueError as error:
        raise QueryError(f"not a position: {error}") from None
    for move in moves:
        if not board.is_legal(move):
            raise QueryError(f"{move!r} is not a legal move in {board.fen()}")
        board.push(move)
    return signed_key(board.hash)


@dataclass
class MoveStats:
    """One move played from a position: how often and how it scored."""
    move: str
    """The move, in coordinates (ranks 0-9)."""
    games: int
    """Games that played it from the position (at their first arrival)."""
    red: int
    """Of those, the games Red won."""
    draw: int
    """Of those, the draws."""
    black: int
    """Of those, the games Black won."""
    average_year: float | None
    """The average year of the dated ones (None: none dated)."""
    last_game: int
    """The id of the most recent game (by date) that played it."""
    last_date: str | None
    """That game's date as its record wrote it."""

    def as_json(self) -> dict[str, object]:
        """The fields as a JSON object (tuong-db explore --json)."""
        return {"move": self.move, "games": self.games, "red": self.red, "draw": self.draw,
                "black": self.black, "average_year": self.average_year,
                "last_game": self.last_game, "last_date": self.last_date}


@dataclass
class Exploration:
    """A position's games and the moves played next, the most played first."""
    games: int
    """Games that reach the position (each once, at its first arrival)."""
    moves: list[MoveStats] = field(default_factory=list)
    """The moves played from it, the most played first."""

    def as_json(self) -> dict[str, object]:
        """`{"games": N, "moves": [{"move": "h2e2", "games": n, "red": w,
        "draw": d, "black": l, ...}]}`, moves as coordinates (ranks 0-9)."""
        return {"games": self.games, "moves": [move.as_json() for move in self.moves]}


def explore(connection: sqlite3.Connection, fen: str | None = None,
            moves: Sequence[str] = ()) -> Exploration:
    """The games that reach the position after `moves` from `fen` (the
    start when None) and what they played from it. Raises QueryError."""
    key = position_key(fen, moves)
    total = connection.execute("SELECT count(*) FROM positions WHERE key = ?", (key,)).fetchone()[0]
    rows = connection.execute(
        "SELECT next, count(*), sum(outcome = 1), sum(outcome = 0), sum(outcome = -1), "
        "avg(nullif(day, 0) / 10000), max(coalesce(day, 0) * 4294967296 + game) "
        "FROM positions WHERE key = ? AND next IS NOT NULL GROUP BY next", (key,)).fetchall()
    stats = []
    for code, games, red, draw, black, year, last in rows:
        last_game = last % 4294967296
        date = connection.execute("SELECT date FROM games WHERE id = ?", (last_game,)).fetchone()
        stats.append(MoveStats(decode_move(code), games, red or 0, draw or 0, black or 0,
                               round(year, 1) if year is not None else None, last_game,
                               date[0] if date else None))
    stats.sort(key=lambda s: (-s.games, s.move))
    return Exploration(total, stats)


@dataclass
class Search:
    """What a search asks; every field given must hold (None: any). Player
    names, events and openings match as parts, traditional and simplified
    characters alike; `ecco` is a code or a prefix (C8 is C80-C89);
    dates are YYYY[.MM[.DD]]; `position` is (fen or None, moves)."""
    player: str | None = None
    """Either side's player (a part of the name)."""
    red: str | None = None
    """Red's player (a part of the name)."""
    black: str | None = None
    """Black's player (a part of the name)."""
    event: str | None = None
    """A part of the event's name."""
    site: str | None = None
    """A part of the site's name."""
    date_from: str | None = None
    """Played on or after this date (YYYY[.MM[.DD]])."""
    date_to: str | None = None
    """Played on or before this date (a year or month reaches its end)."""
    result: str | None = None
    """The result: '1-0', '0-1', '1/2-1/2' or '*'."""
    ecco: str | None = None
    """An ECCO code or its prefix (C84, C8, C)."""
    opening: str | None = None
    """A part of the record's opening name."""
    position: tuple[str | None, Sequence[str]] | None = None
    """Games that reach the position after these moves (coordinates) from
    this FEN (None: the start)."""
    limit: int | None = 100
    """At most this many games (None: all)."""
    offset: int = 0
    """Games skipped first (for paging)."""


def _date_bound(text: str, upper: bool) -> int:
    day = day_of(text)
    if day is None:
        raise QueryError(f"{text!r} is not a date (YYYY, YYYY.MM or YYYY.MM.DD)")
    if upper:                          # 2012 reaches 2012.12.31, 2012.10 its 31st
        if day % 10000 == 0:
            day += 1299
        elif day % 100 == 0:
            day += 99
    return day


def _where(search: Search) -> tuple[str, list[object]]:
    clauses: list[str] = []
    values: list[object] = []
    for column, text in (("red_f", search.red), ("black_f", search.black),
                         ("event_f", search.event), ("site_f", search.site),
                         ("opening_f", search.opening)):
        if text:
            clauses.append(f"instr({column}, ?) > 0")
            values.append(fold(text))
    if search.player:
        clauses.append("(instr(red_f, ?) > 0 OR instr(black_f, ?) > 0)")
        values += [fold(search.player)] * 2
    if search.date_from:
        clauses.append("day >= ?")
        values.append(_date_bound(search.date_from, False))
    if search.date_to:
        clauses.append("day <= ?")
        values.append(_date_bound(search.date_to, True))
    if search.result:
        if search.result not in RESULTS:
            raise QueryError(f"result must be one of {', '.join(RESULTS)}")
        clauses.append("result = ?")
        values.append(search.result)
    if search.ecco:
        code = search.ecco.strip().upper()
        if not (1 <= len(code) <= 3 and code[0] in "ABCDE" and
                (len(code) == 1 or code[1:].isdigit())):
            raise QueryError(f"{search.ecco!r} is not an ECCO code or prefix (A00-E99, C, C8)")
        clauses.append("ecco LIKE ?")
        values.append(code + "%")
    if search.position is not None:
        clauses.append("id IN (SELECT game FROM positions WHERE key = ?)")
        values.append(position_key(*search.position))
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", values


def search(connection: sqlite3.Connection, query: Search) -> list[Game]:
    """The games that match `query`, oldest first (undated last), at most
    query.limit of them from query.offset. Raises QueryError."""
    where, values = _where(query)
    sql = f"SELECT {GAME_COLUMNS} FROM games{where} ORDER BY day IS NULL, day, id"
    if query.limit is not None:
        sql += " LIMIT ? OFFSET ?"
        values += [query.limit, query.offset]
    return [game_from_row(row) for row in connection.execute(sql, values)]


def count(connection: sqlite3.Connection, query: Search) -> int:
    """How many games match `query` (its limit aside)."""
    where, values = _where(query)
    return connection.execute(f"SELECT count(*) FROM games{where}", values).fetchone()[0]

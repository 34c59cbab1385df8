"""Importing record files into the games database.

Every game of a PGN file (any notation, encoding and line end) and XQF
files, folders searched recursively. Files are read on worker processes;
the database is written by the calling process, a transaction every few
hundred files, each file's row written with its games: an import that is
interrupted loses at most the files of one transaction, and the next
import of the same files skips those already in (same path, size and time)
and files whose bytes another file already brought. A game already in the
database (the same start and moves, the same players and year: same_game) is kept once.
"""
from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import sqlite3
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from tuong.engine.board import Board
from tuong.tools.db.fold import fold
from tuong.tools.db.store import OUTCOMES, day_of, encode_move, signed_key
from tuong.tools.records import Record, game_files, read_bytes

START_FEN = Board().fen()
GAME_SUFFIXES = (".pgn", ".xqf")
BATCH_FILES = 200              # files a transaction


@dataclass
class ImportReport:
    """What an import did."""
    files: int = 0
    """Files read and stored."""
    resumed: int = 0
    """Files skipped: already imported (the same path, size and time)."""
    same_bytes: int = 0
    """Files skipped: the bytes of a file already imported."""
    games: int = 0
    """Games added."""
    duplicates: int = 0
    """Games not added: the same game was in the database (importer.same_game)."""
    problems: list[str] = field(default_factory=list)
    """Games (or files) not read, each named by file and game, with why."""


@dataclass
class _Parsed:
    path: str
    size: int
    mtime: float
    digest: bytes
    games: list[dict[str, object]]
    problems: list[str]


def line_key(fen: str | None, moves: list[str]) -> bytes:
    """A hash of a game's start and moves: games with another are never one."""
    text = (fen or "") + "\x1f" + " ".join(moves)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def _same_player(one: str, other: str) -> bool:
    one, other = one.replace(" ", ""), other.replace(" ", "")
    if not one or not other or "?" in (one, other):
        return True
    # Collections write a player's team or region before the name (湖北 柳大華, 中華臺北吳貴臨)
    return one.endswith(other) or other.endswith(one)


def same_game(one: tuple[str, str, int | None], other: tuple[str, str, int | None]) -> bool:
    """Whether two records of the same moves (line_key) are one game: each
    side's player the same (folded; a team or region written before a name,
    or a name missing, does not tell them apart) and the same year (or one
    unknown). Records are (red folded, black folded, day); collections date
    one game differently (4/17/1996, 1996年4月18日), so the day is not compared."""
    years = [day // 10000 for day in (one[2], other[2]) if day]
    return _same_player(one[0], other[0]) and _same_player(one[1], other[1]) and \
        (len(years) < 2 or years[0] == years[1])


def game_row(record: Record, source: str) -> dict[str, object]:
    """A record as the database stores it: its fields, folded fields, and
    its positions at their first arrival with the move played from there."""
    tags = dict(record.tags)
    fen = record.fen
    board = Board(fen) if fen else Board()
    if board.fen() == START_FEN:
        fen = None
    red = record.red
    outcome = OUTCOMES.get(record.result)
    day = day_of(tags.get("Date"))
    positions: dict[int, tuple[int, int | None]] = {}
    for ply, move in enumerate(record.moves):
        key = signed_key(board.hash)
        if key not in positions:
            positions[key] = (ply, encode_move(move))
        board.push(move)
    key = signed_key(board.hash)
    if key not in positions:
        positions[key] = (len(record.moves), None)
    pairs = [("Red" if name == "White" else name, value) for name, value in record.tags.items()]
    return {
        "red": red, "black": tags.get("Black"), "event": tags.get("Event"),
        "site": tags.get("Site"), "date": tags.get("Date"), "result": record.result,
        "ecco": (tags.get("ECCO") or "").strip().upper() or None,
        "opening": tags.get("Opening") or None, "day": day, "fen": fen,
        "moves": " ".join(record.moves), "plies": len(record.moves),
        "tags": json.dumps(pairs, ensure_ascii=False), "source": source,
        "line": line_key(fen, record.moves),
        "positions": [(key, ply, next_move, outcome, day)
                      for key, (ply, next_move) in positions.items()],
    }


def _parse(job: tuple[str, int, float, bytes, bytes]) -> _Parsed:
    """On a worker: a file's games as rows, and its problems (games left out)."""
    path, size, mtime, digest, data = job
    texts: list[str] = []
    games: list[dict[str, object]] = []
    try:
        records, problems = read_bytes(data, path)
        texts = [str(problem) for problem in problems if not problem.game_kept]
        for record in records:
            try:
                games.append(game_row(record, f"{path}#{len(games) + 1}"))
            except ValueError as error:          # a position the board refuses
                texts.append(f"{path}, game {record.title()}: {error}")
    except Exception as error:                   # one broken file never stops an import
        return _Parsed(path, size, mtime, digest, [], [f"{path}: cannot read: {error!r}"])
    return _Parsed(path, size, mtime, digest, games, texts)


_GAME_FIELDS = ("red", "black", "event", "site", "date", "result", "ecco", "opening", "day",
                "fen", "moves", "plies", "tags", "source", "line")
_INSERT_GAME = (f"INSERT INTO games({', '.join(_GAME_FIELDS)}, red_f, black_f, event_f,"
                f" site_f, opening_f) VALUES ({', '.join('?' * (len(_GAME_FIELDS) + 5))})")


def store_games(connection: sqlite3.Connection,
                games: Iterable[dict[str, object]]) -> tuple[int, int]:
    """Insert game rows (game_row's) inside the caller's transaction:
    (added, duplicates)."""
    added = duplicates = 0
    for game in games:
        values = [game[name] for name in _GAME_FIELDS]
        folded = [fold(game[name]) for name in ("red", "black", "event", "site", "opening")]  # type: ignore[arg-type]
        known = connection.execute("SELECT red_f, black_f, day FROM games WHERE line = ?",
                                   (game["line"],)).fetchall()
        if any(same_game((folded[0], folded[1], game["day"]), row) for row in known):  # type: ignore[arg-type]
            duplicates += 1
            continue
        cursor = connection.execute(_INSERT_GAME, values + folded)
        added += 1
        game_id = cursor.lastrowid
        connection.executemany(
            "INSERT OR IGNORE INTO positions(key, game, ply, next, outcome, day) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(key, game_id, ply, next_move, outcome, day)
             for key, ply, next_move, outcome, day in game["positions"]])   # type: ignore[attr-defined]
    return added, duplicates


def _jobs(paths: Iterable[str], done: dict[str, tuple[int, float]], digests: set[bytes],
          report: ImportReport, skipped: deque[tuple[str, int, float, bytes]]
          ) -> Iterator[tuple[str, int, float, bytes, bytes]]:
    """The files still to read. Those already in (`done`: path to size and
    time) or whose bytes are (`digests`) are counted in `report` and, when
    new paths, queued in `skipped` for their row. Runs on the pool's feeder
    thread: it touches no connection."""
    for path in paths:
        path = os.path.abspath(path)
        try:
            stat = os.stat(path)
            if done.get(path) == (stat.st_size, stat.st_mtime):
                report.resumed += 1
                continue
            with open(path, "rb") as f:
                data = f.read()
        except OSError as error:
            report.problems.append(f"{path}: cannot read: {error.strerror}")
            continue
        digest = hashlib.blake2b(data, digest_size=16).digest()
        if digest in digests:
            report.same_bytes += 1
            skipped.append((path, stat.st_size, stat.st_mtime, digest))
            continue
        digests.add(digest)
        yield path, stat.st_size, stat.st_mtime, digest, data


def import_files(connection: sqlite3.Connection, paths: Iterable[str], *,
                 workers: int | None = None,
                 progress: Callable[[ImportReport, int], None] | None = None) -> ImportReport:
    """Import the record files and folders in `paths` (PGN and XQF files;
    folders recursively). `workers`: processes reading files (default: the
    machine's cores). `progress(report, files_seen)` is called as files are done.
    Returns the ImportReport; an interrupted import keeps every finished
    transaction (KeyboardInterrupt propagates after the rollback)."""
    files = [path for path in game_files(paths) if path.lower().endswith(GAME_SUFFIXES)
             or not os.path.isdir(path) and not path.lower().endswith((".fen", ".epd"))]
    report = ImportReport()
    skipped: deque[tuple[str, int, float, bytes]] = deque()
    workers = workers or os.cpu_count() or 1
    done = {path: (size, mtime) for path, size, mtime in
            connection.execute("SELECT path, size, mtime FROM files")}
    digests = {row[0] for row in connection.execute("SELECT digest FROM files")}
    jobs = _jobs(files, done, digests, report, skipped)
    context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    pool = context.Pool(workers) if workers > 1 else None
    results = pool.imap(_parse, jobs, chunksize=8) if pool else map(_parse, jobs)
    pending = 0
    try:
        connection.execute("BEGIN")
        for parsed in results:
            added, duplicates = store_games(connection, parsed.games)
            connection.execute("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?)",
                               (parsed.path, parsed.size, parsed.mtime, parsed.digest, added,
                                duplicates, len(parsed.problems)))
            report.files += 1
            report.games += added
            report.duplicates += duplicates
            report.problems.extend(parsed.problems)
            pending += 1
            if pending >= BATCH_FILES:
                _note_skipped(connection, skipped)
                connection.execute("COMMIT")
                connection.execute("BEGIN")
                pending = 0
            if progress is not None:
                progress(report, report.files + report.resumed + report.same_bytes)
        _note_skipped(connection, skipped)
        connection.execute("COMMIT")
    except BaseException:
        connection.rollback()
        raise
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    if progress is not None:
        progress(report, report.files + report.resumed + report.same_bytes)
    return report


def _note_skipped(connection: sqlite3.Connection,
                  skipped: deque[tuple[str, int, float, bytes]]) -> None:
    """Rows for files skipped for their bytes, so the next import skips them by path."""
    rows = []
    while skipped:                       # the feeder thread may append meanwhile
        rows.append(skipped.popleft())
    connection.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, 0, 0, 0)", rows)


def count_files(paths: Iterable[str]) -> int:
    """How many record files `paths` hold (for a progress bar's total)."""
    return sum(1 for path in game_files(paths) if path.lower().endswith(GAME_SUFFIXES)
               or not os.path.isdir(path) and not path.lower().endswith((".fen", ".epd")))


class ProgressLine:
    """A progress line on a terminal's stderr (nothing when stderr is not
    one): files done of the total, games added, rate and time left."""

    def __init__(self, total: int, stream=sys.stderr) -> None:
        self.total, self.stream = total, stream
        self.started = self.last = time.monotonic()
        self.live = hasattr(stream, "isatty") and stream.isatty()

    def __call__(self, report: ImportReport, seen: int) -> None:
        now = time.monotonic()
        if not self.live or (now - self.last < 0.25 and seen < self.total):
            return
        self.last = now
        rate = seen / max(now - self.started, 1e-9)
        left = (self.total - seen) / rate if rate else 0
        width = 30
        filled = int(width * seen / max(self.total, 1))
        self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {seen:,}/{self.total:,} "
                          f"files, {report.games:,} games, {rate:,.0f} files/s, "
                          f"{left:,.0f} s left ")
        if seen >= self.total:
            self.stream.write("\n")
        self.stream.flush()

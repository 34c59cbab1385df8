"""The opening book: its file format, reading and probing it, and the
weighted choice the engine plays from it. Plain Python (the standard library
only): the engine process reads books with it, tools/book.py writes them.

Positions are keyed independently of the engine's Zobrist keys (which may
change from build to build): the key is the first 8 bytes of BLAKE2b over
the position's canonical text, `<placement> <side>` (FEN's first two fields,
side `w` or `b`), where canonical means the lexicographically smaller of the
position and its left-right mirror (files a <-> i). A mirrored position's
moves are stored mirrored, so a position and its mirror share their entries:
a book that knows 1. h2e2 (C2=5) knows 1. b2e2 (C8=5) as well. A position
equal to its own mirror (the start) keeps both of a mirrored pair of moves,
each with its own weight.

The file, all integers little-endian:

    offset  size         field
    0       8            magic b"TUONGBK\\0"
    8       2  uint16    version (1)
    10      2  uint16    entry size (16)
    12      2  uint16    description length D
    14      2  uint16    reserved (0)
    16      4  uint32    entry count N
    20      4  uint32    CRC-32 of the D + 16N bytes after the header
    24      D            description (UTF-8: how the book was made)
    24+D    16N          entries, strictly increasing by (key, move):
              8  uint64  key (above)
              2  uint16  move: from square << 8 | to square, square = rank x 9 + file
                         (a0 = 0, i0 = 8, a1 = 9, ..., i9 = 89), in the canonical position
              2  uint16  weight, 1..65535 (the chance of the move among its position's)
              2  uint16  games the move was played in (saturating; 0: from analysis only)
              2  int16   the analysis's score for the mover, centipawns (-32768: none)

The entries are found by binary search on the key. A file that is missing,
no regular file, over 256 MiB, cut short or too long, of another version,
whose checksum does not match, or whose entries are out of order or name
impossible squares is refused with a BookError (a ValueError) naming the
file and the problem. The whole file is read into memory rather than
mapped: a mapped file that shrinks under the engine (rewritten while in
use) kills the process with SIGBUS, and the engine must go on without a
book instead.
"""
import bisect
import hashlib
import os
import random
import struct
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Iterable
from typing import List, Optional

from tuong.engine.files import NotAFileError, read_regular
from tuong.engine.rows import mirror_move, mirror_placement

MAGIC = b"TUONGBK\0"
"""The first 8 bytes of a book file, `b"TUONGBK\\0"`."""
VERSION = 1
"""The file format's version that this module reads and writes: 1."""
HEADER = struct.Struct("<8sHHHHII")
"""The header's layout (24 bytes: magic, version, entry size, description
length, reserved, entry count, CRC-32), a `struct.Struct`."""
ENTRY = struct.Struct("<QHHHh")
"""An entry's layout (16 bytes: key, move, weight, games, score), a `struct.Struct`."""
NO_SCORE = -32768
"""The score field's value for an entry without an analysis score (-32768)."""
MAX_WEIGHT = 65535
"""The largest weight an entry holds (65535); weights run from 1."""
MAX_COUNT = 65535
"""The largest game count an entry holds (65535; a larger count saturates)."""
MAX_DESCRIPTION = 65535
"""The longest description, in UTF-8 bytes (65535)."""
# The largest file read: 16.7 million entries, about 25 s of checks when
# loaded (0.3 s per 200,000 measured); far above any real book.
MAX_FILE_BYTES = 256 * 2**20
"""The largest book file read, in bytes (256 MiB: 16.7 million entries); a
larger one is refused with BookError."""
# The book shipped with the package (option BookFile's `<default>`); how it
# was built is in its description and in the README.
DEFAULT_PATH = Path(__file__).resolve().parent / "default.book"
"""The book shipped with the package, `default.book` beside this module
(the engine's option `BookFile` value `<default>`): a `pathlib.Path`."""
FILES = "abcdefghi"
"""The file letters, from Red's left: a square's file is its index here."""


class BookError(ValueError):
    """A book file that cannot be used."""


# -- positions and moves ------------------------------------------------------
def canonical(fen: str) -> tuple[str, bool]:
    """(canonical text, mirrored) of a FEN: mirrored is True when the text
    is the mirror's, so the position's moves must be mirrored to match it."""
    fields = fen.split()
    placement = fields[0]
    side = "b" if len(fields) > 1 and fields[1] == "b" else "w"
    mirror = mirror_placement(placement)
    if mirror < placement:
        return f"{mirror} {side}", True
    return f"{placement} {side}", False


def key_of_text(text: str) -> int:
    """The book key of a canonical position text (`canonical(fen)[0]`): the
    first 8 bytes of its BLAKE2b digest, little-endian. Raises
    UnicodeEncodeError for a text that is not ASCII."""
    return int.from_bytes(hashlib.blake2b(text.encode("ascii"), digest_size=8).digest(),
                          "little")


def position_key(fen: str) -> tuple[int, bool]:
    """(key, mirrored) of a position given by its FEN: the key its entries
    are filed under, and whether the book holds it mirrored (its moves are
    then stored mirrored). The FEN is not checked beyond its first two fields."""
    text, mirrored = canonical(fen)
    return key_of_text(text), mirrored


def game_ply(fen: str) -> int:
    """Plies played since the start of the game, from the FEN's move number
    and side (the engine keeps them as the game goes: `position startpos
    moves ..` after 7 moves is ply 7)."""
    fields = fen.split()
    try:
        number = max(1, int(fields[5]))
    except (IndexError, ValueError):
        number = 1
    return 2 * (number - 1) + (1 if len(fields) > 1 and fields[1] == "b" else 0)


def square(text: str) -> int:
    """The file's number of a square (`"a0"` -> 0, `"i0"` -> 8, `"a1"` -> 9,
    ..., `"i9"` -> 89): rank x 9 + file. ValueError (or IndexError) for a
    text that names no square."""
    return int(text[1]) * 9 + FILES.index(text[0])


def encode_move(move: str) -> int:
    """a0-i9 move text -> the file's 16-bit code."""
    return square(move[:2]) << 8 | square(move[2:4])


def decode_move(code: int) -> str:
    """The file's 16-bit code -> a0-i9 text; BookError if a square is off the board."""
    origin, target = code >> 8, code & 0xFF
    if origin > 89 or target > 89 or origin == target:
        raise BookError(f"move code {code:#06x} names no move")
    return (FILES[origin % 9] + str(origin // 9)) + (FILES[target % 9] + str(target // 9))


# -- entries and files ---------------------------------------------------------
@dataclass(frozen=True)
class Entry:
    """One entry of a book file, as `encode` and `write` take them: a move
    of a canonical position with its weight."""
    key: int
    """The position's key (`position_key(fen)[0]`)."""
    move: str           # in the canonical position
    """The move as a0-i9 text, in the canonical position (mirrored when
    `position_key(fen)[1]` is True)."""
    weight: int
    """The move's weight, 1 to MAX_WEIGHT: its chance among its position's moves."""
    games: int = 0
    """The games the move was played in (0: from analysis only)."""
    score: Optional[int] = None
    """The analysis's score for the mover in centipawns, or None."""


def encode(entries: Iterable[Entry], description: str = "") -> bytes:
    """The bytes of a book file holding `entries` (any order; sorted here).
    ValueError if two entries share a key and move or a field is out of range."""
    rows = sorted((e.key, encode_move(e.move), e.weight, e.games,
                   NO_SCORE if e.score is None else e.score) for e in entries)
    for before, after in zip(rows, rows[1:]):
        if before[:2] == after[:2]:
            raise ValueError(f"two entries for move {decode_move(after[1])} "
                             f"of key {after[0]:016x}")
    body = bytearray()
    for key, move, weight, games, score in rows:
        if not 1 <= weight <= MAX_WEIGHT:
            raise ValueError(f"weight {weight} outside 1..{MAX_WEIGHT}")
        if not 0 <= games <= MAX_COUNT:
            raise ValueError(f"game count {games} outside 0..{MAX_COUNT}")
        if score != NO_SCORE and not -32767 <= score <= 32767:
            raise ValueError(f"score {score} outside -32767..32767")
        body += ENTRY.pack(key, move, weight, games, score)
    text = description.encode("utf-8")
    if len(text) > MAX_DESCRIPTION:
        raise ValueError(f"description longer than {MAX_DESCRIPTION} bytes")
    payload = text + bytes(body)
    return HEADER.pack(MAGIC, VERSION, ENTRY.size, len(text), 0, len(rows),
                       zlib.crc32(payload)) + payload


def write(path: str | os.PathLike[str], entries: Iterable[Entry], description: str = "") -> int:
    """Write a book file holding `entries` (as `encode`) to `path`; returns
    the bytes written. ValueError as `encode`; OSError if the file cannot be
    written."""
    data = encode(entries, description)
    with open(path, "wb") as f:
        f.write(data)
    return len(data)


@dataclass
class BookMove:
    """A move of the probed position (as played there, not canonical)."""
    move: str
    """The move as a0-i9 text, in the probed position."""
    weight: int
    """Its weight, 1 to MAX_WEIGHT: the chance `choose` draws it with."""
    games: int
    """The games it was played in (0: from analysis only)."""
    score: Optional[int]
    """The analysis's score for the mover in centipawns, or None."""


@dataclass
class Choice:
    """A move chosen from the book, shaped as a search result is for the
    dialects that print it (`best`, `ponder`)."""
    best: str
    """The move chosen, as a0-i9 text."""
    moves: List[BookMove] = field(default_factory=list)
    """Every book move of the position it was chosen among, heaviest first."""
    ponder: Optional[str] = None
    """The reply expected (None: the book gives none)."""

    def describe(self, shown: int = 8) -> str:
        """`book move h2e2 (weight 60 of 178: h2e2 60, b2e2 60, ...)`."""
        total = sum(m.weight for m in self.moves)
        chosen = next(m.weight for m in self.moves if m.move == self.best)
        listed = ", ".join(f"{m.move} {m.weight}" for m in self.moves[:shown])
        more = f", {len(self.moves) - shown} more" if len(self.moves) > shown else ""
        return f"book move {self.best} (weight {chosen} of {total}: {listed}{more})"


class _Keys:
    """The entries' keys as a sequence, for bisect (no list is built)."""

    def __init__(self, data, start, count):
        self.data, self.start, self.count = data, start, count

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        return struct.unpack_from("<Q", self.data, self.start + index * ENTRY.size)[0]


class Book:
    """A book file, read and checked; probe(fen) finds a position's moves.
    `Book(data, source)` reads a file's bytes (`source` names it in errors);
    `Book.open(path)` reads a file. A file that cannot be used raises
    BookError (a ValueError) naming it and the problem. `len(book)` is its
    number of entries."""

    def __init__(self, data: bytes, source: str | os.PathLike[str] = "<book>") -> None:
        self.source = str(source)
        """The file the book was read from (or the `source` given), as text."""
        self.data = bytes(data)
        """The file's bytes, read whole."""
        self._check()
        self._keys = _Keys(self.data, self.start, self.count)

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> "Book":
        """The book at `path`, read and checked; BookError naming the file
        and the problem (missing, unreadable, not a regular file, too large,
        damaged)."""
        try:
            data = read_regular(path, MAX_FILE_BYTES, "a book")
        except OSError as error:
            raise BookError(f"{path}: cannot read ({error.strerror or error})") from None
        except NotAFileError as error:
            raise BookError(f"{path}: {error}") from None
        return cls(data, path)

    def _fail(self, problem):
        raise BookError(f"{self.source}: {problem}")

    def _check(self):
        data = self.data
        if len(data) < HEADER.size:
            self._fail(f"not a tuong book ({len(data)} bytes, shorter than its header)")
        magic, version, size, length, _, count, crc = HEADER.unpack_from(data)
        if magic != MAGIC:
            self._fail("not a tuong book (bad magic; tuong-book build writes them)")
        if version != VERSION:
            self._fail(f"book version {version}; this engine reads version {VERSION}")
        if size != ENTRY.size:
            self._fail(f"entries of {size} bytes; version {VERSION} has {ENTRY.size}")
        expected = HEADER.size + length + count * ENTRY.size
        if len(data) != expected:
            what = "cut short" if len(data) < expected else "too long"
            self._fail(f"{what}: {len(data)} bytes, the header says {expected}")
        if zlib.crc32(memoryview(data)[HEADER.size:]) != crc:
            self._fail("corrupt (checksum mismatch)")
        try:
            self.description = data[HEADER.size:HEADER.size + length].decode("utf-8")
        except UnicodeDecodeError:
            self._fail("corrupt (description is not UTF-8)")
        self.start, self.count = HEADER.size + length, count
        previous, positions = None, 0
        for index, (key, move, weight, _, _) in enumerate(
                ENTRY.iter_unpack(memoryview(data)[self.start:])):
            if previous is not None and (key, move) <= previous:
                self._fail(f"entry {index} out of order (entries must be sorted by key "
                           "and move, each once)")
            if weight == 0:
                self._fail(f"entry {index} has weight 0")
            if previous is None or key != previous[0]:
                positions += 1
            try:
                decode_move(move)
            except BookError as error:
                self._fail(f"entry {index}: {error}")
            previous = (key, move)
        self.positions = positions

    def entries(self, key: int) -> list[tuple[int, int, int, int, int]]:
        """The raw entries of `key`, in file order."""
        index = bisect.bisect_left(self._keys, key)
        found = []
        while index < self.count:
            entry = ENTRY.unpack_from(self.data, self.start + index * ENTRY.size)
            if entry[0] != key:
                break
            found.append(entry)
            index += 1
        return found

    def probe(self, fen: str, legal: Iterable[str] | None = None) -> list[BookMove]:
        """The book moves of the position `fen` as played there, heaviest
        first. With `legal` (the position's legal moves) only those are
        kept: a book is data from outside, and a move it names is never
        played unchecked."""
        key, mirrored = position_key(fen)
        moves = []
        for _, code, weight, games, score in self.entries(key):
            move = decode_move(code)
            moves.append(BookMove(mirror_move(move) if mirrored else move, weight, games,
                                  None if score == NO_SCORE else score))
        if legal is not None:
            allowed = set(legal)
            moves = [m for m in moves if m.move in allowed]
        moves.sort(key=lambda m: (-m.weight, m.move))
        return moves

    def choose(self, fen: str, legal: Iterable[str] | None,
               rng: random.Random | None = None) -> Choice | None:
        """A Choice drawn at random by weight among the book's legal moves of
        `fen` (only those in `legal`, or all of them when `legal` is None), or
        None if it has none. `rng` draws (default: the `random` module's)."""
        moves = self.probe(fen, legal)
        if not moves:
            return None
        picked = (rng or random).choices(moves, weights=[m.weight for m in moves])[0]
        return Choice(picked.move, moves)

    def __len__(self) -> int:
        return self.count

"""Tablebase files and the set of tables in a folder (plain Python).

A table's file is `<name>.tutb` (KRAvKEE.tutb), little-endian:

    8 bytes   magic b"TUONGTB1"
    u16       format version (1)
    u16       length of the name, then the name (ASCII)
    u64       positions in the table (both sides to move)
    u16       the longest distance to mate in it, in plies (0xFFFF: none)
    u32       CRC-32 of the folded values
    u64       length of the compressed values, then the values: the table's
              bytes (engine/egtb.pyx: 0 draw, 255 no such position, else
              plies to mate + 1, odd plies a win for the side to move) with
              the left-right mirror folded away (only the positions whose
              Red general stands on the d or e file), compressed with LZMA (xz).

A table is named Red's pieces first. Only one colouring of each material is
stored, the canonical one: the side with more material (rook 9, cannon 4.5,
horse 4, advisor and elephant 2, pawn 1) is Red, ties broken by the name; a
position of the other colouring is probed with its colours flipped.
"""
import lzma
import os
import struct
import zlib
from collections.abc import Sequence

from tuong.engine.egtb import LETTERS, Table, name_of, parse_name
from tuong.engine.files import NotAFileError, open_regular
from tuong.engine.rows import flip_square, xiangqi_placement, xiangqi_squares

MAGIC = b"TUONGTB1"
"""The first 8 bytes of a table file, `b"TUONGTB1"`."""
VERSION = 1
"""The file format's version that this module reads and writes: 1."""
SUFFIX = ".tutb"
"""A table file's suffix: `KRAvKEE.tutb`."""
_HEAD = struct.Struct("<8sHH")
_BODY = struct.Struct("<QHIQ")
_VALUE = {"K": 0, "R": 9, "C": 4.5, "H": 4, "A": 2, "E": 2, "P": 1}
MAX_FILE = 2 << 30           # a table's compressed values, at most
"""The longest compressed values a table file may hold, in bytes (2 GiB);
a file saying more is refused with TableError."""


class TableError(ValueError):
    """A table file that cannot be used, and why."""


def _strength(part: str) -> float:
    return sum(_VALUE[c] for c in part)


def canonical(name: str) -> tuple[str, bool]:
    """(the stored name of the material `name` (`"KvKR"`), whether its
    colours are flipped): the side with more material is Red, ties broken by
    the name (`canonical("KvKR") == ("KRvK", True)`). ValueError for a name
    without `v`."""
    red, black = name.split("v")
    if (_strength(red), red) >= (_strength(black), black):
        return name, False
    return f"{black}v{red}", True


def write_table(table: Table, path: str) -> None:
    """Write `table` to the file `path` (the format above), through
    `path + ".part"` renamed at the end: a file is whole or absent. OSError
    if it cannot be written."""
    data = table.folded()
    packed = lzma.compress(data, preset=6)
    name = table.name.encode("ascii")
    longest = table.max_dtm if table.max_dtm >= 0 else 0xFFFF
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(_HEAD.pack(MAGIC, VERSION, len(name)) + name)
        f.write(_BODY.pack(table.size, longest, zlib.crc32(data), len(packed)))
        f.write(packed)
    os.replace(tmp, path)           # a file is whole or absent: generation can resume


def read_table(path: str | os.PathLike[str], expected_name: str | None = None) -> Table:
    """The Table in the file `path`, checked whole (its header, its length,
    its checksum); TableError (a ValueError) saying what is wrong with a bad
    one, or with one that holds another material than `expected_name`."""
    try:
        with open_regular(path) as f:
            head = f.read(_HEAD.size)
            if len(head) < _HEAD.size:
                raise TableError(f"{path}: too short for a table")
            magic, version, length = _HEAD.unpack(head)
            if magic != MAGIC:
                raise TableError(f"{path}: not a tuong table (bad magic)")
            if version != VERSION:
                raise TableError(f"{path}: format version {version}, this build reads {VERSION}")
            name = f.read(length).decode("ascii", "replace")
            body = f.read(_BODY.size)
            if len(body) < _BODY.size:
                raise TableError(f"{path}: truncated header")
            size, longest, crc, packed_length = _BODY.unpack(body)
            if packed_length > MAX_FILE:
                raise TableError(f"{path}: implausible length {packed_length}")
            packed = f.read(packed_length)
    except OSError as error:
        raise TableError(f"{path}: cannot read ({error.strerror})") from None
    except NotAFileError as error:
        raise TableError(f"{path}: {error}") from None
    if expected_name and name != expected_name:
        raise TableError(f"{path}: holds {name!r}, not {expected_name!r}")
    if len(packed) != packed_length:
        raise TableError(f"{path}: truncated ({len(packed)} of {packed_length} bytes)")
    try:
        table = Table(name)
    except ValueError as error:
        raise TableError(f"{path}: {error}") from None
    if table.size != size:
        raise TableError(f"{path}: {size} positions, {name} has {table.size}")
    expected = table.folded_size()
    try:
        # No more than the table can hold: a crafted file cannot balloon.
        decompressor = lzma.LZMADecompressor()
        data = decompressor.decompress(packed, max_length=expected + 1)
    except lzma.LZMAError as error:
        raise TableError(f"{path}: corrupt data ({error})") from None
    if len(data) != expected or not decompressor.eof:
        raise TableError(f"{path}: {len(data)} values, expected {expected}")
    if zlib.crc32(data) != crc:
        raise TableError(f"{path}: checksum mismatch (a damaged file)")
    try:
        table.unfold(data)
    except ValueError as error:
        raise TableError(f"{path}: {error}") from None
    table.set_longest(-1 if longest == 0xFFFF else longest)
    return table


def material(fen: str) -> tuple[str, list[tuple[int, int, int]]]:
    """(name of a position's material, [(colour, kind, square)]) from a FEN:
    colour 0 Red, 1 Black; kind the index in LETTERS (K A E H R C P); square
    rank * 9 + file; in the FEN's order. ValueError for a placement that is
    not 10 rows of 9 cells."""
    squares = xiangqi_squares(fen.split()[0])
    pieces = []
    for rank in range(9, -1, -1):                # as the FEN lists them
        for sq in range(rank * 9, rank * 9 + 9):
            c = squares[sq]
            if c is not None:
                letter = {"N": "H", "B": "E"}.get(c.upper(), c.upper())
                pieces.append((0 if c.isupper() else 1, LETTERS.index(letter), sq))
    return name_of([(c, k) for c, k, _ in pieces]), pieces


def fen_of(pieces: Sequence[tuple[int, int]], squares: Sequence[int], side: int) -> str:
    """A FEN (placement and side) from [(colour, kind)], their squares
    (rank * 9 + file) and the side to move (0 Red): material() reversed."""
    board: list[str | None] = [None] * 90
    for (colour, kind), sq in zip(pieces, squares):
        letter = "KABNRCP"[kind]                 # LETTERS as FEN writes them
        board[sq] = letter if colour == 0 else letter.lower()
    return xiangqi_placement(board) + (" w" if side == 0 else " b")


class Tablebases:
    """The tables in a folder, read when first needed. A table that cannot
    be read is reported once (`problems`) and treated as absent.
    `Tablebases(path)` lists the folder `path`; TableError if it is not a
    folder or cannot be listed.

    ```python
    tables = Tablebases("tables")
    print(describe(tables.probe_fen("4k4/9/9/9/9/9/9/9/4R4/3K5 w")))
    ```
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        if not os.path.isdir(path):
            raise TableError(f"{path}: not a folder")
        self.path = path
        """The folder, as given."""
        try:
            entries = os.listdir(path)
        except OSError as error:         # e.g. not readable: said as a table problem
            raise TableError(f"{path}: {error.strerror or error}") from None
        # A file whose name is no endgame's is not a table (and is ignored).
        self.names = {f[:-len(SUFFIX)] for f in entries
                      if f.endswith(SUFFIX) and _parses(f[:-len(SUFFIX)])}
        """The names of the tables in the folder (`"KRvK"`): its `.tutb` files
        whose names are endgames'."""
        self.tables: dict[str, Table | None] = {}
        """The tables read so far by name; None for one that failed to be read."""
        self.problems: dict[str, str] = {}
        """Why each table that failed to be read was left out, by name."""
        self.max_pieces = max((len(parse_name(n)) for n in self.names), default=0)
        """The most pieces (generals included) in a table of the folder; 0 without tables."""

    def table(self, name: str) -> Table | None:
        """The table of a canonical name (see `canonical`), read on first use;
        None if the folder has none, or it could not be read (then in
        `problems`). Raises nothing."""
        if name in self.tables:
            return self.tables[name]
        table = None
        if name in self.names and name not in self.problems:
            try:
                table = read_table(os.path.join(self.path, name + SUFFIX), name)
            except TableError as error:
                self.problems[name] = str(error)
            except MemoryError:
                self.problems[name] = f"{name}: not enough memory to read it"
        self.tables[name] = table          # last: a reader thread's table is whole
        return table

    def attempted(self, name: str) -> bool:
        """Has the table of `name` been read (or failed to be)?"""
        return name in self.tables

    def loaded(self, name: str) -> Table | None:
        """The table of `name` if it has been read, else None (never reads)."""
        return self.tables.get(name)

    def file_size(self, name: str) -> int:
        """Bytes of the table's file (0 if it has gone)."""
        try:
            return os.path.getsize(os.path.join(self.path, name + SUFFIX))
        except OSError:
            return 0

    def probe_fen(self, fen: str, load: bool = True) -> int | None:
        """The value byte of the position `fen` (see the module docstring:
        0 draw, 255 no such position, else plies to mate + 1, odd plies a win
        for the side to move; `describe` says it in words), or None when no
        table holds it (or, with `load` false, when its table has not been
        read yet). ValueError for a FEN whose placement is not 10 rows of 9."""
        name, pieces = material(fen)
        stored, flip = canonical(name)
        table = self.table(stored) if load else self.loaded(stored)
        if table is None:
            return None
        side = 0 if fen.split()[1] in ("w", "r") else 1
        squares = _squares(table, pieces, flip)
        index = table.index_of(squares, side ^ flip)
        return None if index < 0 else table.value_at(index)


def _parses(name: str) -> bool:
    try:
        parse_name(name)
        return True
    except ValueError:
        return False


def _squares(table: Table, pieces: list[tuple[int, int, int]], flip: bool) -> list[int]:
    """The pieces' squares in the table's order (colours and ranks flipped
    for a position of the other colouring)."""
    pool = [((c ^ flip), k, flip_square(sq) if flip else sq) for c, k, sq in pieces]
    squares = []
    for colour, kind in table.pieces():
        for i, (c, k, sq) in enumerate(pool):
            if (c, k) == (colour, kind):
                squares.append(sq)
                del pool[i]
                break
    return squares


def describe(value: int | None) -> str:
    """A value byte (as probe_fen returns it) in words, from the side to
    move's view: `"win in 5 plies"`, `"loss in 4 plies"`, `"draw"`, `"no
    such position"`, or `"not in the tables"` for None."""
    if value is None:
        return "not in the tables"
    if value == 255:
        return "no such position"
    if value == 0:
        return "draw"
    plies = value - 1
    return f"win in {plies} plies" if plies % 2 else f"loss in {plies} plies"

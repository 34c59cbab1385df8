"""Training positions on disk: the binary format tuong-datagen writes and
tuong-train reads.

A file is a 16-byte header, then 32-byte records, one a position:

    header:  magic b"TUONGPOS" | version (uint32 LE, 1) | record size (uint32 LE, 32)
    record:  occupancy  12 bytes  bit s (LSB first) set when square s holds a piece;
                                  s = rank * 9 + file, a0 = 0, i9 = 89
             pieces     16 bytes  one nibble a piece, in square order, low nibble
                                  first: kind 0-6 K A B N R C P for Red, 7-13 Black
             score      int16 LE  the search's score, centipawns, side to move's view
             result     int8      the game's result for Red: 1 win, 0 draw, -1 loss
             side       uint8     0 Red to move, 1 Black

The writer needs only the standard library; the reader (`read`) gives numpy
arrays, for the trainer. A file cut short mid-record (a run killed while
writing) is repaired by `open_for_append`, which drops the partial record.
"""
import os
import struct

from tuong.engine.rows import xiangqi_placement, xiangqi_squares

MAGIC = b"TUONGPOS"
VERSION = 1
RECORD_SIZE = 32
HEADER = struct.Struct("<8sII")
TAIL = struct.Struct("<hbB")
PIECE_LETTERS = "KABNRCPkabnrcp"        # kind = index (Pikafish's letters)
_KIND = {letter: i for i, letter in enumerate(PIECE_LETTERS)}
_KIND.update({"E": 2, "H": 3, "e": 9, "h": 10})     # WXF-style letters accepted


class DatasetError(ValueError):
    """A file that is not a positions file, or a broken one."""


def squares_of_fen(fen):
    """The 90 squares of a FEN's placement (a0 first): a letter or None."""
    try:
        return xiangqi_squares(fen.split()[0])
    except (ValueError, IndexError) as error:
        raise DatasetError(f"{error}") from None


def pack(squares, score, result, side):
    """One record: squares as squares_of_fen gives them, score (side to
    move's view, clamped to int16), result for Red (1, 0, -1), side 0/1."""
    occupancy = 0
    nibbles = []
    for s, letter in enumerate(squares):
        if letter is not None:
            occupancy |= 1 << s
            nibbles.append(_KIND[letter])
    if len(nibbles) > 32:
        raise DatasetError("more than 32 pieces")
    nibbles += [0] * (32 - len(nibbles))
    pieces = bytes(nibbles[i] | nibbles[i + 1] << 4 for i in range(0, 32, 2))
    score = max(-32767, min(32767, int(score)))
    return occupancy.to_bytes(12, "little") + pieces + TAIL.pack(score, result, side)


def unpack(record):
    """(fen placement + side, score, result, side) of one record: for tests and tools."""
    occupancy = int.from_bytes(record[:12], "little")
    nibbles = [b >> shift & 15 for b in record[12:28] for shift in (0, 4)]
    score, result, side = TAIL.unpack(record[28:32])
    squares, k = [None] * 90, 0
    for s in range(90):
        if occupancy >> s & 1:
            squares[s] = PIECE_LETTERS[nibbles[k]]
            k += 1
    return xiangqi_placement(squares) + (" w" if side == 0 else " b"), score, result, side


def header():
    return HEADER.pack(MAGIC, VERSION, RECORD_SIZE)


def check_header(raw, path):
    if len(raw) < HEADER.size:
        raise DatasetError(f"{path}: too short for a positions file")
    magic, version, size = HEADER.unpack(raw[:HEADER.size])
    if magic != MAGIC:
        raise DatasetError(f"{path}: not a tuong positions file (magic {magic!r})")
    if version != VERSION or size != RECORD_SIZE:
        raise DatasetError(f"{path}: positions format version {version}, record {size} bytes; "
                           f"this tuong reads version {VERSION}, {RECORD_SIZE} bytes")


def open_for_append(path):
    """Open (creating it with its header) a positions file for appending;
    returns (file, records already in it). A partial last record is cut off."""
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        f = open(path, "wb")
        f.write(header())
        f.flush()
        return f, 0
    with open(path, "rb") as f:
        check_header(f.read(HEADER.size), path)
    size = os.path.getsize(path)
    records, extra = divmod(size - HEADER.size, RECORD_SIZE)
    f = open(path, "r+b")
    if extra:
        f.truncate(HEADER.size + records * RECORD_SIZE)
    f.seek(0, os.SEEK_END)
    return f, records


def count(path):
    """Records in a positions file (DatasetError if it is not one)."""
    with open(path, "rb") as f:
        check_header(f.read(HEADER.size), path)
    return (os.path.getsize(path) - HEADER.size) // RECORD_SIZE


def read(path, limit=None):
    """The records of a file (at most `limit`) as numpy arrays: decode()."""
    import numpy as np
    with open(path, "rb") as f:
        check_header(f.read(HEADER.size), path)
        n = (os.path.getsize(path) - HEADER.size) // RECORD_SIZE
        if limit is not None:
            n = min(n, limit)
        raw = np.fromfile(f, dtype=np.uint8, count=n * RECORD_SIZE).reshape(n, RECORD_SIZE)
    return decode(raw, path)


def read_range(path, start, count):
    """Records start .. start + count - 1 of a file, decoded (the trainer
    reads a file larger than memory this way, a chunk at a time)."""
    import numpy as np
    with open(path, "rb") as f:
        check_header(f.read(HEADER.size), path)
        f.seek(HEADER.size + start * RECORD_SIZE)
        raw = np.fromfile(f, dtype=np.uint8, count=count * RECORD_SIZE)
    raw = raw[:len(raw) // RECORD_SIZE * RECORD_SIZE].reshape(-1, RECORD_SIZE)
    return decode(raw, path, first=start)


def _in_palace(square, red):
    """Whether each square (0..89, a0 first) is in Red's palace or Black's."""
    file, rank = square % 9, square // 9
    ranks = (rank <= 2) if red else (rank >= 7)
    return (file >= 3) & (file <= 5) & ranks & (square >= 0)


def decode(raw, source="records", first=0):
    """Records (n, 32) uint8 -> dict of numpy arrays:
    square (n, 32) int16: each piece's square 0..89, -1 for no piece;
    kind (n, 32) int8: its kind 0..13 (-1 for none);
    score (n,) int16, result (n,) int8 (Red's), side (n,) uint8.
    A record that no position can have is a DatasetError naming `source`
    and the record's number (counted from `first`)."""
    import numpy as np
    n = len(raw)
    all_bits = np.unpackbits(raw[:, :12], axis=1, bitorder="little")
    bits = all_bits[:, :90]
    order = np.argsort(1 - bits.astype(np.int8), axis=1, kind="stable")[:, :32]  # occupied first
    present = np.take_along_axis(bits, order, axis=1).astype(bool)
    nib = raw[:, 12:28]
    kinds = np.empty((n, 32), dtype=np.int8)
    kinds[:, 0::2] = nib & 15
    kinds[:, 1::2] = nib >> 4
    square = np.where(present, order, -1).astype(np.int16)
    kind = np.where(present, kinds, -1).astype(np.int8)
    tail = raw[:, 28:32].copy().view(np.dtype([("score", "<i2"), ("result", "i1"), ("side", "u1")]))
    tail = tail.reshape(n)
    pieces = all_bits.sum(axis=1, dtype=np.int32)
    problems = [
        (all_bits[:, 90:].any(axis=1), "occupancy beyond square 89"),
        (pieces > 32, "more than 32 pieces"),
        ((kind > 13).any(axis=1), "a piece kind above 13"),
        (((kind == 0).sum(axis=1) != 1) | ((kind == 7).sum(axis=1) != 1),
         "not one general a side"),
        # (square % 9: the file, square // 9: the rank) Red's palace d0-f2, Black's d7-f9;
        # the king buckets' arithmetic reads past its weights for any other square.
        (((kind == 0) & ~_in_palace(square, red=True)).any(axis=1)
         | ((kind == 7) & ~_in_palace(square, red=False)).any(axis=1),
         "a general outside its palace"),
        ((tail["result"] < -1) | (tail["result"] > 1), "a result outside -1..1"),
        (tail["side"] > 1, "a side to move other than 0 or 1"),
    ]
    for bad, what in problems:
        if bad.any():
            index = int(np.argmax(bad))
            raise DatasetError(f"{source}: record {first + index:,} has {what}")
    return {"square": square, "kind": kind, "score": tail["score"].astype(np.int16),
            "result": tail["result"].astype(np.int8), "side": tail["side"].astype(np.uint8)}

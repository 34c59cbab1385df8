"""Game records from files: read_file and read_bytes (PGN, XQF, FEN/EPD, told
apart by name and content), iter_games (a file a game at a time, cut into
pieces by tools/records/chunks.py) and game_files (the record files of
folders)."""
import dataclasses
import itertools
import os
from collections.abc import Iterable, Iterator
from typing import IO

from tuong.tools.records import chunks
from tuong.tools.records.encoding import Decoded
from tuong.tools.records.encoding import read as read_encoded
from tuong.tools.records.notation import Notation
from tuong.tools.records.reading import (BOM, _move_number, looks_like_fen_lines, read_fen_lines,
                                         read_pgn)
from tuong.tools.records.record import Problem, Record


def read_file(path: str | os.PathLike[str],
              notation: Notation | None = None) -> tuple[list[Record], list[Problem]]:
    """([Record], [Problem]) of a PGN, XQF or FEN/EPD file."""
    source = os.path.basename(str(path))
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as error:
        return [], [Problem(source, 0, "file", f"cannot read: {error.strerror}")]
    return read_bytes(data, source, notation)


def iter_games(source: str | os.PathLike[str] | IO[bytes] | IO[str],
               notation: Notation | None = None,
               problems: list[Problem] | None = None) -> Iterator[Record]:
    """The games of a record file one at a time, as read_file reads them,
    without reading the file whole first: a PGN file (any notation, encoding
    and line end) is read a game at a time, a FEN/EPD file a line at a time,
    an XQF file (one game) whole. `source` is a path, or a file open for
    reading, in binary (then told apart as a path is) or text mode (PGN or
    FEN lines, already decoded). `notation` as for read_pgn.

    Games that do not read are left out; with `problems`, a list, each
    Problem is appended to it as its game is passed (a game left out, a
    variation left out, the file's damaged bytes at the end), numbered in
    the whole file as read_file numbers them.

    A file's encoding is the one its first megabyte reads in best (where
    read_file weighs the whole file), and it is read as FEN lines when its
    name ends in .fen or .epd or its first megabyte is FEN lines alone.

    ```python
    for record in iter_games("games.pgn"):
        print(record.red, record.black, record.result, len(record.moves))
    ```

    Raises OSError when a path cannot be opened (read_file reports it as a
    Problem instead)."""
    if isinstance(source, (str, os.PathLike)):
        name = os.path.basename(os.fspath(source))
        with open(source, "rb") as stream:
            yield from _iter_stream(stream, name, notation, problems)
    else:
        name = os.path.basename(str(getattr(source, "name", "<file>")))
        yield from _iter_stream(source, name, notation, problems)


def _iter_stream(stream, source, notation, problems):
    """iter_games of an open file; its Problems appended to `problems` (if a list)."""
    note = problems.extend if problems is not None else (lambda found: None)
    head = stream.read(chunks.HEAD)
    fen_name = source.lower().endswith((".fen", ".epd"))
    faults = Decoded("", "", [])             # the bytes that did not decode
    if isinstance(head, str):                # a file open in text mode: text as it comes
        # A BOM read as a character (a UTF-8 file opened as "utf-8", not "utf-8-sig") is
        # no text of the file, as the bytes' readers skip it (chunks.encoding_of).
        head = head.removeprefix(BOM)
        lines = chunks.text_lines(itertools.chain([head], iter(
            lambda: stream.read(chunks.BLOCK), "")))
        fen = fen_name or looks_like_fen_lines(head[:head.rfind("\n") + 1] or head)
        pieces = lines if fen else chunks.text_pieces(lines)
    elif head[:2] == b"XQ" or source.lower().endswith(".xqf"):
        records, found = read_bytes(head + stream.read(), source, notation)
        note(found)
        yield from records
        return
    else:
        fen = fen_name or looks_like_fen_lines(read_encoded(chunks.whole_lines(head)).text)
        pieces = chunks.decoded_lines(head, stream) if fen else \
            chunks.pgn_pieces(head, stream, faults)
    games = 0                                # the games (FEN: lines) before the piece
    for piece in pieces:
        if fen:                              # a piece is a line
            games += 1
            records, found = read_fen_lines(piece, source)
            note(dataclasses.replace(p, game=games) for p in found)
        else:
            records, found = read_pgn(piece, source, notation)
            note(dataclasses.replace(p, game=p.game + games) for p in found)
            games += len(records) + sum(1 for p in found if not p.game_kept)
        yield from records
    warning = faults.warning()
    if warning:                              # the file's own (game 0): its text, not a game
        note([Problem(source, 0, "file", warning, game_kept=True)])




def read_bytes(data: bytes, source: str = "<file>", notation: Notation | None = None,
               limit: int | None = None) -> tuple[list[Record], list[Problem]]:
    """([Record], [Problem]) of a file's bytes: XQF (by its signature or a
    .xqf name), FEN/EPD (by a .fen/.epd name), else PGN."""
    if data[:2] == b"XQ" or source.lower().endswith(".xqf"):
        from tuong.tools.records import xqf
        dropped: list[tuple[int, str, str]] = []
        try:
            tags, tree, result = xqf.read_xqf_tree(data, source, dropped)
        except ValueError as error:
            return [], [Problem(source, 1, "XQF", str(error))]
        tags.setdefault("Result", result)
        record = Record(tags, tree.root.tip().moves(),
                        [node.comment for node in tree.main_line()],
                        result, "xqf", tags.pop("Comment", None), tree)
        return [record], [Problem(source, 1, record.title(), f"variation dropped: {why}",
                                  _move_number(ply, record.fen), move, game_kept=True)
                          for ply, move, why in dropped]
    decoded = read_encoded(data)
    text, warning = decoded.text, decoded.warning()
    if source.lower().endswith((".fen", ".epd")) or looks_like_fen_lines(text):
        records, problems = read_fen_lines(text, source)
    else:
        records, problems = read_pgn(text, source, notation, limit)
    if warning:                          # the file's own (game 0): its text, not a game
        problems.append(Problem(source, 0, "file", warning, game_kept=True))
    return records, problems


def game_files(paths: Iterable[str]) -> Iterator[str]:
    """The record files named, folders searched (PGN, XQF, FEN, EPD)."""
    for path in paths:
        if os.path.isdir(path):
            for root, _, names in sorted(os.walk(path)):
                for name in sorted(names):
                    if name.lower().endswith((".pgn", ".xqf", ".fen", ".epd")):
                        yield os.path.join(root, name)
        else:
            yield path


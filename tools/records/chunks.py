"""A record file game by game, without reading it whole: the pieces of
text that `iter_games` (tools/records/files.py) reads one at a time.

A PGN file is cut before a tag line (`[Name "value"`) that follows
movetext, outside any comment: where the reader of the whole text
(movetext.games) starts the next game. A piece may still hold more than
one game (games without tags, a tag line that shares its line with
moves); the reader splits those, so nothing depends on the cut being the
finest. Lines end at LF, CRLF or a bare CR.

The bytes are cut as bytes, and decoded a piece at a time in the encoding
that the file's first megabyte reads in best (tools/records/encoding.py):
no line end is the trail byte of a GB or Big5 character, nor part of a
UTF-8 one, so a cut never splits a character. UTF-16 (a BOM says so) is
decoded as it is read, and cut as text.
"""
import codecs
import re
from collections.abc import Iterable, Iterator
from typing import IO, Generic, TypeVar

from tuong.tools.records.encoding import Decoded, _reading
from tuong.tools.records.encoding import read as read_encoded

HEAD = 1 << 20
"""Bytes read first: the encoding is chosen from them (and the file told a
PGN from FEN lines or XQF)."""
BLOCK = 1 << 16
"""Bytes read at a time after the head."""
_TAG_LINE = re.compile(r'\s*\[\s*\w+\s+"')
_LINE_END = re.compile(rb"\r\n|\n|\r(?!\n)")
_TEXT_ENDS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"    # where str.splitlines ends a line
_TEXT_END = re.compile(f"[{_TEXT_ENDS}]")
_T = TypeVar("_T", bytes, str)


class GameCutter(Generic[_T]):
    """Lines in, pieces (lists of lines) out: `feed(line, text)` returns
    the piece that a new game on that line ends (else None); `text` is the
    line as text, read only to find the cut. `rest()` is the last piece."""

    def __init__(self) -> None:
        self.piece: list[_T] = []
        self.in_comment = False          # inside `{...}`, which may span lines
        self.moved = False               # movetext since the piece's tags

    def feed(self, line: _T, text: str) -> list[_T] | None:
        """Add a line; the piece before it when it starts a new game."""
        done = None
        if not self.in_comment and _TAG_LINE.match(text):
            if self.moved and self.piece:
                done, self.piece, self.moved = self.piece, [], False
        elif self.in_comment or not text.startswith("%"):   # PGN's escape line: no movetext
            self._scan(text)
        self.piece.append(line)
        return done

    def _scan(self, text: str) -> None:
        in_comment, moved = self.in_comment, self.moved
        for char in text:
            if in_comment:
                in_comment = char != "}"
            elif char == "{":
                in_comment = True
            elif char == ";":
                break                    # a comment to the end of the line
            elif not moved and not char.isspace():
                moved = True
        self.in_comment, self.moved = in_comment, moved

    def rest(self) -> list[_T]:
        """The last piece (empty when nothing was fed since the last cut)."""
        piece, self.piece = self.piece, []
        return piece


def byte_lines(head: bytes, stream: IO[bytes]) -> Iterator[bytes]:
    """The lines of `head` and then of what `stream` holds, each with its
    line end; the last one may have none. Reads BLOCK bytes at a time."""
    pending: list[bytes] = []            # the parts of a line not yet ended
    block = head
    while True:
        start = 0
        if pending and pending[-1].endswith(b"\r"):    # a CR ended the last block
            yield b"".join(pending) + (b"\n" if block.startswith(b"\n") else b"")
            pending, start = [], 1 if block.startswith(b"\n") else 0
        for end in _LINE_END.finditer(block, start):
            stop = end.end()
            if stop == len(block) and block.endswith(b"\r"):
                break                    # a CR at the block's end: its LF may follow
            yield b"".join(pending) + block[start:stop] if pending else block[start:stop]
            pending, start = [], stop
        if start < len(block):
            pending.append(block[start:])
        block = stream.read(BLOCK)
        if not block:
            break
    if pending:
        yield b"".join(pending)


def text_lines(text: Iterable[str]) -> Iterator[str]:
    """The lines of text that comes in pieces (an incremental decoder's),
    each with its line end (LF, CRLF or CR; str.splitlines's others too)."""
    pending: list[str] = []              # the parts of a line not yet ended
    for piece in text:
        # A piece without a line end only adds to the line (a long line costs
        # no more than its length); the pending line is split again only with
        # one that has, or when it ends in a line end itself (a CR, its LF may follow).
        if pending and pending[-1][-1] in _TEXT_ENDS or _TEXT_END.search(piece):
            lines = ("".join(pending) + piece).splitlines(keepends=True)
            # The last line may go on in the next piece (a CR, its LF too).
            pending = [lines.pop()] if lines and not lines[-1].endswith("\n") else []
            yield from lines
        elif piece:
            pending.append(piece)
    if pending:
        yield "".join(pending)


def decoded_pieces(head: bytes, stream: IO[bytes], encoding: str) -> Iterator[str]:
    """`head` and then what `stream` holds, decoded in `encoding` BLOCK bytes
    at a time (a BOM read as the encoding's own), an undecodable byte read as
    U+FFFD."""
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    yield decoder.decode(head)
    while block := stream.read(BLOCK):
        yield decoder.decode(block)
    yield decoder.decode(b"", final=True)


def encoding_of(head: bytes) -> tuple[str, int]:
    """(the encoding, the length of the BOM to skip) of a file that starts
    with `head`: a BOM's (UTF-16 keeps its BOM, its decoder reads it), else
    the one `head` reads in best (encoding.read)."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16", 0
    if head.startswith(b"\xef\xbb\xbf"):
        return "utf-8", 3
    return read_encoded(whole_lines(head)).encoding, 0


def decoded_lines(head: bytes, stream: IO[bytes]) -> Iterator[str]:
    """The lines of a file that starts with `head` (the rest in `stream`), as
    text in its encoding (encoding_of), a byte that does not decode read as
    U+FFFD."""
    encoding, skip = encoding_of(head)
    if encoding == "utf-16":
        yield from text_lines(decoded_pieces(head, stream, encoding))
        return
    for line in byte_lines(head[skip:], stream):
        yield line.decode(encoding, "replace")


def text_pieces(lines: Iterable[str]) -> Iterator[str]:
    """PGN text, line by line, a piece (a game or a few) at a time."""
    cutter: GameCutter[str] = GameCutter()
    for line in lines:
        piece = cutter.feed(line, line)
        if piece:
            yield "".join(piece)
    yield "".join(cutter.rest())


def pgn_pieces(head: bytes, stream: IO[bytes], faults: Decoded) -> Iterator[str]:
    """A PGN file's text a piece (a game or a few) at a time: `head` is its
    first bytes, `stream` the rest. `faults` gets the encoding and the
    offsets (in the file) of the bytes that did not decode, each read as
    U+FFFD (UTF-16: not counted)."""
    encoding, skip = encoding_of(head)
    faults.encoding = encoding
    if encoding == "utf-16":             # decoded as read, and cut as text
        yield from text_pieces(decoded_lines(head, stream))
        return
    cutter: GameCutter[bytes] = GameCutter()
    offset = skip

    def text_of(piece: list[bytes]) -> str:
        nonlocal offset
        data = b"".join(piece)
        decoded = _reading(data, encoding)
        faults.damaged.extend(offset + at for at in decoded.damaged)
        offset += len(data)
        return decoded.text

    for line in byte_lines(head[skip:], stream):
        text = line.decode("ascii") if line.isascii() else line.decode(encoding, "replace")
        piece = cutter.feed(line, text)
        if piece:
            yield text_of(piece)
    yield text_of(cutter.rest())


def whole_lines(head: bytes) -> bytes:
    """`head` up to its last line end (a character cut at its end would count
    as a fault against the right encoding), or whole without one."""
    end = max(head.rfind(b"\n"), head.rfind(b"\r"))
    return head[:end + 1] if end >= 0 else head

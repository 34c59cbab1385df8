"""Moves as players write them, both ways.

    write(board, move, notation) -> text        parse(board, text, notation=None) -> move

`board` is an engine Board (or a FEN); `move` is in our a0-i9 coordinates;
parse without a notation finds it from the text. These are the Board's
move text in every notation: the Board itself (engine/board.pyx) knows
only a0-i9, as the engine sits below the tools and imports none of them.
The notations:

- ``coords``: a0-i9, files from Red's left, ranks from Red's back rank (h2e2).
- ``ranks1``: the same with ranks 1-10, as Fairy-Stockfish writes over UCI (h3e3).
- ``iccs``: the same as xqbase's PGN writes it (H2-E2).
- ``wxf``: the World Xiangqi Federation's notation (C2=5 H8+7), written exactly
  as Fairy-Stockfish (pyffish) writes it, which tests hold us to.
- ``chinese``: 炮二平五 马８进７ (Red's numbers in Chinese numerals, Black's in
  full-width digits; traditional characters, ASCII and full-width digits and
  the usual variants accepted on input).
- ``vietnamese``: the notation of the Vietnamese federation that VSCCP uses
  (P2-5 M8.7: Tg S T X P M B/C, `.` forward, `/` back, `-` sideways).

Every notation names a move by its piece, where that piece stands (its file,
counted from the mover's own right; or its place among several pieces of the
kind on one file), the direction, and the distance (along a file) or the file
it arrives on. The structure is shared; the spellings differ:

Several pieces of a kind on one file. WXF follows Fairy-Stockfish: two pieces
are `+` (front) and `-` (rear) after the letter (R+=4), unless the other piece
could not make the same move (then the file is unambiguous and written);
pawns on a file of three or more, or on two files of two or more, are named by
their place from the front and their file (15+1: the front pawn on file 5).
Chinese and Vietnamese write 前/后 (t/s) for two pieces, 前/中/后 (t/g/s) for
three, 一二三四五 (1-5) for more, before the piece in Chinese (前车进一) and
after its letter in Vietnamese (Xt.1); when two files hold several pawns the
file follows (前兵七进一, Bt7.1). Advisors and elephants always go by their
file: their direction tells two of them apart.

Parsing finds the legal move whose description matches the text; a text that
names the piece by its file where the canonical form names it by its place
is accepted when only one legal move fits it. It goes the quick way first
(_direct, tools/records/quickread.py: the pieces the text may name, found
on the board's placement, tools/records/placement.py, each giving at most
one move), and describes every legal move only when that way finds no
single legal move, which gives the same answers (tests/test_notation_fast.py).
LineReader reads a game's moves one after another, its placement kept up to
date move by move. The descriptions and their spellings are
tools/records/spelling.py's.
"""
import functools
import re
import unicodedata
from collections.abc import Callable, Iterable
from typing import Literal, cast, get_args

from tuong.engine.board import Board
from tuong.protocol.client import from_engine_move, to_engine_move
from tuong.tools.records.placement import Placement
from tuong.tools.records.quickread import _direct
from tuong.tools.records.spelling import (_CN_PIECES, _VN_RE, _WXF_RE, _View, _describe,
                                          _file_form, _matches, _read_chinese, _read_vietnamese,
                                          _read_wxf, _tandem_form, _write_chinese,
                                          _write_vietnamese, _write_wxf)

Notation = Literal["coords", "ranks1", "iccs", "wxf", "chinese", "vietnamese"]
"""A notation's name, as `write`, `parse` and the records take it: a type
checker rejects any other text (`"WXF"`), which raises ValueError at run time."""
NOTATIONS: tuple[Notation, ...] = get_args(Notation)
"""The notations' names, as `write`, `parse` and the records take them
(the values of `Notation`)."""


# -- the public face ---------------------------------------------------------
def _board(board: Board | str) -> Board:
    return Board(board) if isinstance(board, str) else board


_BOARDS: dict[str | None, Board] = {}


def board_at(fen: str | None = None) -> Board:
    """Board(fen) (the start position for None or ""), a copy of one kept
    for the FEN: records repeat their FENs, and a Board costs a FEN's
    parsing where a copy costs next to nothing. ValueError as Board's."""
    board = _BOARDS.get(fen)
    if board is None:
        board = Board(fen) if fen else Board()
        if len(_BOARDS) >= 256:
            _BOARDS.clear()
        _BOARDS[fen] = board
    return board.copy()


def write(board: Board | str, move: str, notation: Notation = "wxf") -> str:
    """A move's text in a notation.

    Parameters:
        board: the position, a Board or a FEN.
        move: a legal move of it, in a0-i9 coordinates (`"h2e2"`).
        notation: one of NOTATIONS (`"wxf"` unless given).

    Returns:
        The move as the notation writes it (`"C2=5"`, `"炮二平五"`, `"P2-5"`, ...).

    Raises:
        ValueError: the move is not legal on the board, or the notation is unknown.
    """
    board = _board(board)
    _legal(board, move, move)
    return _writer(board, notation)(move)


def write_all(board: Board | str, notation: Notation = "wxf") -> dict[str, str]:
    """{move: text} for every legal move of `board`."""
    board = _board(board)
    spell = _writer(board, notation)
    return {move: spell(move) for move in board.legal_moves()}


def _writer(board, notation):
    """A function from a legal move of `board` to its text in the notation."""
    if notation == "coords":
        return lambda move: move
    if notation == "ranks1":
        return lambda move: to_engine_move(move, True)
    if notation == "iccs":
        return lambda move: f"{move[:2].upper()}-{move[2:].upper()}"
    view = _View(board.fen())
    if notation == "wxf":
        return lambda move: _write_wxf(_describe(view, move, "wxf"))
    if notation == "chinese":
        return lambda move: _write_chinese(_describe(view, move, "players"), view.red)
    if notation == "vietnamese":
        return lambda move: _write_vietnamese(_describe(view, move, "players"), view.red)
    raise ValueError(f"unknown notation {notation!r}: one of {', '.join(NOTATIONS)}")


def write_line(fen: str | None, moves: Iterable[str], notation: Notation = "wxf") -> list[str]:
    """A line of moves from a position, each in the notation."""
    board, out = (Board(fen) if fen else Board()), []
    for move in moves:
        out.append(write(board, move, notation))
        board.push(move)
    return out


_READERS = {"wxf": (_read_wxf, "wxf"), "chinese": (_read_chinese, "players"),
            "vietnamese": (_read_vietnamese, "players")}
_COORDS = re.compile(r"[a-i]\d[a-i]\d")
_ICCS = re.compile(r"([A-Ia-i]\d)-?([A-Ia-i]\d)")


def parse(board: Board | str, text: str, notation: Notation | None = None) -> str:
    """The legal move a text names.

    Parameters:
        board: the position, a Board or a FEN.
        text: a move as written (`"C2=5"`, `"炮二平五"`, `"H2-E2"`, `"h2e2"`).
        notation: one of NOTATIONS; None (the default) finds it from the
            text: the notation detect() sees in it first, then each other
            notation whose shape the text has, in the order of NOTATIONS,
            until one names a legal move (`"h2e2"` reads as a0-i9 before
            ranks 1-10, `"C2-1"` as WXF before Vietnamese: give the
            notation where a text could mean two moves).

    Returns:
        The move in a0-i9 coordinates (`"h2e2"`).

    Raises:
        ValueError: saying why when the text names no legal move
            (malformed, illegal or ambiguous; without a notation, why its
            first reading failed), or the notation is unknown.
    """
    board = _board(board)
    if notation is not None:
        return _parse(board, text, notation, None)
    failures = []
    for name in shapes(text):
        try:
            return _parse(board, text, name, None)
        except ValueError as error:
            failures.append(error)
    if failures:
        raise failures[0]
    raise ValueError(f"not a move in any notation ({', '.join(NOTATIONS)}): {text!r}")


def _parse(board: Board, text: str, notation: str, placement: Placement | None,
           direct: bool = True) -> str:
    """parse, with the position's Placement where the caller keeps one; the
    long way alone (describing every legal move) unless `direct`."""
    text = text.strip()
    if notation != "chinese":
        # Full-width forms (Ｃ２＝５), as Chinese and Japanese keyboards type
        # them; the Chinese reader takes its own digits as they come.
        text = unicodedata.normalize("NFKC", text)
    if notation == "coords":
        if not _COORDS.fullmatch(text):
            raise ValueError(f"not a coordinate move: {text!r}")
        return _legal(board, text, text)
    if notation == "ranks1":
        move = from_engine_move(text, True)
        if move is None:
            raise ValueError(f"not a ranks 1-10 coordinate move: {text!r}")
        return _legal(board, move, text)
    if notation == "iccs":
        m = _ICCS.fullmatch(text)
        if not m:
            raise ValueError(f"not an ICCS move: {text!r}")
        return _legal(board, (m.group(1) + m.group(2)).lower(), text)
    if notation not in _READERS:
        raise ValueError(f"unknown notation {notation!r}: one of {', '.join(NOTATIONS)}")
    reader, style = _READERS[notation]
    try:
        read = reader(text)
    except ValueError as error:
        raise ValueError(f"{error}: {text!r}") from None
    if direct:
        move = _direct(board, placement or Placement(board.fen()), read)
        if move is not None:
            return move
    described = _descriptions(board.fen(), tuple(board.legal_moves()), style, read[0])
    found = [m for m, desc, _, _ in described if _matches(read, desc)]
    if not found and read[1][0] == "file":
        found = [m for m, _, file_form, _ in described if file_form == read]
    if not found and read[1][0] == "tandem":
        found = [m for m, _, _, tandem_form in described if _matches(read, tandem_form)]
    if len(found) == 1:
        return found[0]
    raise ValueError(f"{'ambiguous' if found else 'no legal move is'} {text!r} "
                     f"({notation}) in {board.fen()}")


class LineReader:
    """Moves read one after another on a board, each played on it:
    `push(text)` reads a text (as parse) and plays its move; the placement
    the reading looks at is kept up to date from move to move rather than
    read again from the board."""

    def __init__(self, board: Board, notation: Notation) -> None:
        self.board = board
        """The board the moves are played on (the caller's own, changed by `push`)."""
        self.notation: Notation = notation
        """The notation the texts are read in (a name of NOTATIONS)."""
        self._placement: Placement | None = None
        self._key: tuple[int, int] | None = None     # the (ply, hash) _placement is of
        self._reads = _READS.setdefault(notation, {}) if notation in _READERS else None

    def push(self, text: str) -> str:
        """The move (a0-i9) `text` names, played on the board; ValueError (the
        board unchanged) when it names none or the board takes no more."""
        board, reads = self.board, self._reads
        if reads is None:                # a coordinate notation: no pieces to look at
            move = _parse(board, text, self.notation, None)
            board.push(move)
            return move
        placement = self._placement
        if placement is None or self._key != (board.ply, board.hash):
            placement = self._placement = Placement(board.fen())   # first, or changed under us
        try:
            read = reads[text]
        except KeyError:
            read = _read(text, self.notation)
            if len(reads) >= 20_000:
                reads.clear()
            reads[text] = read
        found = _direct(board, placement, read, check=False) if read is not None else None
        try:
            if found is None:
                raise ValueError
            move = found
            board.push(move)             # checks a move _direct did not
        except ValueError:               # the long way: what the text names, or why nothing
            move = _parse(board, text, self.notation, placement, direct=False)
            board.push(move)
        placement.push(move)
        self._key = (board.ply, board.hash)
        return move


# The descriptions texts read as, by notation (LineReader's): games repeat their texts.
_READS: dict[str, dict[str, tuple | None]] = {}


def _read(text: str, notation: str) -> tuple | None:
    """The description a text reads as in a notation of _READERS, as _parse
    reads it (None if it does not)."""
    text = text.strip()
    if notation != "chinese":
        text = unicodedata.normalize("NFKC", text)
    try:
        return _READERS[notation][0](text)
    except ValueError:
        return None


@functools.lru_cache(maxsize=64)
def _descriptions(fen, legal, style, kind):
    """[(move, description, file form, tandem form)] of a position's legal
    moves of one kind of piece (a text names its kind, and every form
    compares it first), kept for the next texts read in the same position."""
    view = _View(fen)
    return [(m, _describe(view, m, style), _file_form(view, m), _tandem_form(view, m))
            for m in legal if view.own[view.to_own(ord(m[0]) - 97, int(m[1]))] == kind]


def _legal(board, move, text):
    if not board.is_legal(move):
        raise ValueError(f"illegal move {text!r} in {board.fen()}")
    return move


def parse_line(fen: str | None, texts: Iterable[str], notation: Notation) -> list[str]:
    """Moves (a0-i9) from texts read one after another from a position."""
    reader = LineReader(Board(fen) if fen else Board(), notation)
    return [reader.push(text) for text in texts]


_CHINESE_CHARS = re.compile("[" + "".join(_CN_PIECES) + "进進退平前后後中" + "]")


def looks_like_move(text: str) -> bool:
    """Whether a text has the shape of a move in some notation (not whether
    it is legal anywhere): to tell a game's moves from other text."""
    text = text.rstrip("?!")
    return bool(_COORDS.fullmatch(text) or _ICCS.fullmatch(text) or _WXF_RE.fullmatch(text)
                or _VN_RE.fullmatch(text)
                or (len(text) == 4 and re.search("[进進退平]", text)
                    and _CHINESE_CHARS.search(text[:2])))


_RANKS1 = re.compile(r"[a-i](10|[1-9])[a-i](10|[1-9])")


def detect(texts: Iterable[str]) -> Notation | None:
    """The notation a sequence of move texts is written in, or None: the one
    most of them have the shape of (a mistyped move does not hide it)."""
    texts = [t.strip() for t in texts if t.strip()]
    if not texts:
        return None
    shapes: tuple[tuple[str, Callable[[str], object]], ...] = (
        ("chinese", _CHINESE_CHARS.search), ("coords", _COORDS.fullmatch),
        # 0-9 ranks unless a rank 0 never shows and a rank 10 does, or the
        # line is only legal read as ranks 1-10 (the caller checks legality).
        ("ranks1", _RANKS1.fullmatch), ("iccs", _ICCS.fullmatch),
        ("letters", lambda t: _WXF_RE.fullmatch(t.upper()) or _VN_RE.fullmatch(t)))
    # The most texts fit; on a tie, the first of the list (most specific) wins
    # (and so does the first that all of them fit, the later left uncounted).
    counts: list[tuple[int, int, str]] = []
    for i, (name, fits) in enumerate(shapes):
        counts.append((sum(bool(fits(t)) for t in texts), -i, name))
        if counts[-1][0] == len(texts):
            break
    count, _, found = max(counts)
    if found != "letters" and count:
        return cast(Notation, found)
    if count:                            # WXF or Vietnamese: by the texts of their shape
        texts = [t for t in texts if shapes[-1][1](t)]
    joined = "".join(texts)
    if re.search(r"[=+]", joined):
        return "wxf"
    if re.search(r"[./]|Tg|[XMST]", joined):
        return "vietnamese"
    return "wxf"


def shapes(text: str) -> list[Notation]:
    """The notations a move text has the shape of (not whether it is legal
    anywhere): the one detect() sees in it first, then the others in the
    order of NOTATIONS. The readings parse() tries without a notation."""
    text = text.strip()
    plain = unicodedata.normalize("NFKC", text)
    fits = {"chinese": _CHINESE_CHARS.search(text), "coords": _COORDS.fullmatch(plain),
            "ranks1": _RANKS1.fullmatch(plain), "iccs": _ICCS.fullmatch(plain),
            "wxf": _WXF_RE.fullmatch(plain.upper()), "vietnamese": _VN_RE.fullmatch(plain)}
    first = detect([text])
    order = ([first] if first else []) + [name for name in NOTATIONS if name != first]
    return [name for name in order if fits[name]]

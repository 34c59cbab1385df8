"""Moves as players write them, both ways.

    write(board, move, notation) -> text        parse(board, text, notation) -> move

`board` is an engine Board (or a FEN); `move` is in our a0-i9 coordinates.
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
date move by move.
"""
import functools
import re
import unicodedata
from collections.abc import Callable, Iterable
from typing import Literal, cast, get_args

from tuong.engine.board import Board
from tuong.engine.rows import xiangqi_squares
from tuong.protocol.client import from_engine_move, to_engine_move
from tuong.tools.records.placement import Placement
from tuong.tools.records.quickread import _direct, _label_index

Notation = Literal["coords", "ranks1", "iccs", "wxf", "chinese", "vietnamese"]
"""A notation's name, as `write`, `parse` and the records take it: a type
checker rejects any other text (`"WXF"`), which raises ValueError at run time."""
NOTATIONS: tuple[Notation, ...] = get_args(Notation)
"""The notations' names, as `write`, `parse` and the records take them
(the values of `Notation`)."""

_KINDS = "KAEHRCP"                      # our piece letters (FEN: B for E, N for H)
_FEN_KIND = {"K": "K", "A": "A", "B": "E", "E": "E", "N": "H", "H": "H",
             "R": "R", "C": "C", "P": "P"}
_PALACE = {(f, r) for f in (3, 4, 5) for r in (0, 1, 2)}
_ADVISOR_POINTS = {(3, 0), (5, 0), (4, 1), (3, 2), (5, 2)}
_ELEPHANT_POINTS = {(2, 0), (6, 0), (0, 2), (4, 2), (8, 2), (2, 4), (6, 4)}


# -- the board as the notations see it -------------------------------------
class _View:
    """The placement, from the side to move's own view: squares (file,
    rank) with files counted 1-9 from the mover's right and ranks 0-9 from the
    mover's back rank."""

    def __init__(self, fen):
        self.red = fen.split()[1] in ("w", "r")
        self.own = {}                   # own square -> kind, the mover's pieces
        for sq, ch in enumerate(xiangqi_squares(fen.split()[0])):
            if ch is not None and ch.isupper() == self.red:
                self.own[self.to_own(sq % 9, sq // 9)] = _FEN_KIND[ch.upper()]

    def to_own(self, f, r):
        """Board (file 0-8 from Red's left, rank 0-9) -> (own file 1-9, own rank)."""
        return (9 - f, r) if self.red else (f + 1, 9 - r)

    def on_file(self, kind, file):
        """The mover's pieces of a kind on a file, front first."""
        return sorted((r for (f, r), k in self.own.items() if k == kind and f == file),
                      reverse=True)


def _region(kind, f, r):
    """May a piece of this kind stand on own square (f 1-9, r 0-9)?"""
    if not (1 <= f <= 9 and 0 <= r <= 9):
        return False
    x = 9 - f                           # 0-8 from the mover's left, as the point sets
    if kind == "K":
        return (x, r) in _PALACE
    if kind == "A":
        return (x, r) in _ADVISOR_POINTS
    if kind == "E":
        return (x, r) in _ELEPHANT_POINTS
    if kind == "P":
        return r >= 3                   # Fairy-Stockfish's region: from the pawns' rank on
    return True


def _describe(view, move, style):
    """(kind, place, direction, distance-or-file) of a legal move. `place` is
    ("file", n) or ("tandem", index from the front, count on the file, file
    or None). `style` "wxf" follows Fairy-Stockfish's choices, "players" the
    Chinese and Vietnamese ones."""
    f0, r0 = view.to_own(ord(move[0]) - 97, int(move[1]))
    f1, r1 = view.to_own(ord(move[2]) - 97, int(move[3]))
    kind = view.own[(f0, r0)]
    direction = "=" if r1 == r0 else "+" if r1 > r0 else "-"
    amount = abs(r1 - r0) if f1 == f0 else f1
    return kind, _place(view, kind, f0, r0, f1 - f0, r1 - r0, style), direction, amount


def _place(view, kind, f0, r0, df, dr, style):
    mates = view.on_file(kind, f0)
    if len(mates) == 1 or kind in "AE" and style == "players":
        return ("file", f0)
    index = mates.index(r0) + 1
    if kind == "P":
        crowded = [f for f in range(1, 10) if len(view.on_file("P", f)) >= 2]
        if style == "wxf" and (len(mates) > 2 or len(crowded) > 1):
            return ("tandem", index, len(mates), f0, f0)
        if style == "players":
            return ("tandem", index, len(mates), f0 if len(crowded) > 1 else None, f0)
    if style == "wxf":
        other = mates[1 - mates.index(r0)]
        if not _region(kind, f0 + df, other + dr):
            return ("file", f0)
    return ("tandem", index, len(mates), None, f0)


def _file_form(view, move):
    """The description that names the piece by its file, whatever the canonical form."""
    kind, _, direction, amount = _describe(view, move, "players")
    f0, _ = view.to_own(ord(move[0]) - 97, int(move[1]))
    return kind, ("file", f0), direction, amount


def _tandem_form(view, move):
    """The description that names the piece by its place on its file whenever
    another piece of its kind shares the file (advisors and elephants too)."""
    kind, _, direction, amount = _describe(view, move, "players")
    f0, r0 = view.to_own(ord(move[0]) - 97, int(move[1]))
    mates = view.on_file(kind, f0)
    if len(mates) == 1:
        return kind, ("file", f0), direction, amount
    return kind, ("tandem", mates.index(r0) + 1, len(mates), None, f0), direction, amount


# -- spellings ---------------------------------------------------------------
_WXF_LETTER = dict(zip(_KINDS, "KAEHRCP"))
_WXF_INPUT = {"K": "K", "G": "K", "A": "A", "S": "A", "E": "E", "B": "E", "H": "H", "N": "H",
              "M": "H", "R": "R", "C": "C", "P": "P"}

_CN_RED = dict(zip(_KINDS, "帅仕相马车炮兵"))
_CN_BLACK = dict(zip(_KINDS, "将士象马车炮卒"))
_CN_PIECES = {"帅": "K", "帥": "K", "将": "K", "將": "K",
              "仕": "A", "士": "A", "相": "E", "象": "E",
              "马": "H", "馬": "H", "傌": "H", "車": "R", "车": "R", "俥": "R", "伡": "R",
              "炮": "C", "砲": "C", "包": "C", "兵": "P", "卒": "P"}
_CN_NUMERALS = "一二三四五六七八九"
_FULL_WIDTH = "１２３４５６７８９"
_CN_DIGITS = {c: i + 1 for s in (_CN_NUMERALS, _FULL_WIDTH, "123456789") for i, c in enumerate(s)}
_CN_DIRECTION = {"进": "+", "進": "+", "退": "-", "平": "="}
_CN_DIRECTION_OUT = {"+": "进", "-": "退", "=": "平"}
_CN_LABELS = {2: "前后", 3: "前中后"}
_CN_LABEL_INPUT = {"前": ("front",), "后": ("rear",), "後": ("rear",), "中": ("middle",)}

_VN_LETTER = {"K": "Tg", "A": "S", "E": "T", "H": "M", "R": "X", "C": "P"}
_VN_DIRECTION = {"+": ".", "-": "/", "=": "-"}
_VN_LABELS = {2: "ts", 3: "tgs"}


def _write_wxf(desc):
    kind, place, direction, amount = desc
    if place[0] == "file":
        head = _WXF_LETTER[kind] + str(place[1])
    elif place[3] is not None:
        head = f"{place[1]}{place[3]}"
    else:
        head = _WXF_LETTER[kind] + ("+" if place[1] == 1 else "-")
    return f"{head}{direction}{amount}"


def _write_chinese(desc, red):
    kind, place, direction, amount = desc
    number = (lambda n: _CN_NUMERALS[n - 1]) if red else (lambda n: _FULL_WIDTH[n - 1])
    piece = (_CN_RED if red else _CN_BLACK)[kind]
    if place[0] == "file":
        head = piece + number(place[1])
    else:
        _, index, count, file, home = place
        label = _CN_LABELS[count][index - 1] if count in _CN_LABELS else _CN_NUMERALS[index - 1]
        head = label + piece + (number(file) if file is not None else "")
    return head + _CN_DIRECTION_OUT[direction] + number(amount)


def _write_vietnamese(desc, red):
    kind, place, direction, amount = desc
    letter = _VN_LETTER.get(kind, "B" if red else "C")
    if place[0] == "file":
        head = letter + str(place[1])
    else:
        _, index, count, file, home = place
        if count in _VN_LABELS:
            head = letter + _VN_LABELS[count][index - 1] + (str(file) if file is not None else "")
        else:
            head = f"{letter}{index}{home}"       # with its file: B1.1 is the pawn on file 1
    return head + _VN_DIRECTION[direction] + str(amount)


# -- reading: text -> a description with possibly unresolved labels --------
_WXF_RE = re.compile(r"(?:([KGASEBHNMRCP])([1-9+\-])|([+\-])([KGASEBHNMRCP])|([1-5])([1-9]))"
                     r"([+\-=.])([1-9])")
_VN_RE = re.compile(r"(Tg|[STXPMBC])(?:([1-9])|([tgs])([1-9])?|([1-5])([1-9]))([./\-])([1-9])")
_VN_KIND = {"Tg": "K", "S": "A", "T": "E", "M": "H", "X": "R", "P": "C", "B": "P", "C": "P"}
_VN_MARK = {"t": "front", "g": "middle", "s": "rear"}
_VN_DIRECTION_IN = {".": "+", "/": "-", "-": "="}


def _read_wxf(text):
    m = _WXF_RE.fullmatch(text.upper())
    if not m:
        raise ValueError("not a WXF move")
    letter, where, sign, letter2, index, file, direction, amount = m.groups()
    direction = {".": "="}.get(direction, direction)     # the WXF standard's sideways mark
    if index:
        return "P", ("tandem", int(index), None, int(file)), direction, int(amount)
    if sign:
        letter, where = letter2, sign
    kind = _WXF_INPUT[letter]
    if where in "+-":
        return (kind, ("tandem", "front" if where == "+" else "rear", None, None), direction,
                int(amount))
    return kind, ("file", int(where)), direction, int(amount)


def _read_chinese(text):
    chars = "".join(text.split())       # str.split's whitespace is str.isspace's
    if len(chars) < 4:
        raise ValueError("not a Chinese move")
    try:
        direction = _CN_DIRECTION[chars[-2]]
        amount = _CN_DIGITS[chars[-1]]
    except KeyError:
        raise ValueError("not a Chinese move") from None
    head = chars[:-2]
    if head[0] in _CN_PIECES and len(head) == 2 and head[1] in _CN_DIGITS:
        return _CN_PIECES[head[0]], ("file", _CN_DIGITS[head[1]]), direction, amount
    label = _CN_LABEL_INPUT.get(head[0], (None,))[0]
    if label is None and head[0] in _CN_NUMERALS[:5]:
        label = _CN_NUMERALS.index(head[0]) + 1
    rest = head[1:]
    if label is None or not rest:
        raise ValueError("not a Chinese move")
    if rest[0] in _CN_PIECES:
        kind, rest = _CN_PIECES[rest[0]], rest[1:]
    else:
        kind = "P"                       # 前七进一: a pawn named by its file alone
    if len(rest) > 1 or rest and rest[0] not in _CN_DIGITS:
        raise ValueError("not a Chinese move")
    file = _CN_DIGITS[rest[0]] if rest else None
    return kind, ("tandem", label, None, file), direction, amount


def _read_vietnamese(text):
    m = _VN_RE.fullmatch(text.strip())
    if not m:
        raise ValueError("not a Vietnamese move")
    letter, file, mark, mark_file, index, index_file, direction, amount = m.groups()
    kind, direction = _VN_KIND[letter], _VN_DIRECTION_IN[direction]
    if file:
        return kind, ("file", int(file)), direction, int(amount)
    if mark:
        return kind, ("tandem", _VN_MARK[mark], None, int(mark_file) if mark_file else None), \
            direction, int(amount)
    return kind, ("tandem", int(index), None, int(index_file)), direction, int(amount)


def _matches(read, desc):
    """Does a read description name the same move as a written one?"""
    if read[0] != desc[0] or read[2:] != desc[2:] or read[1][0] != desc[1][0]:
        return False
    if read[1][0] == "file":
        return read[1] == desc[1]
    _, label, _, file = read[1]
    _, index, count, shown_file, home_file = desc[1]
    if file is None and shown_file is not None:
        return False                     # the text leaves out a file that is needed
    return _label_index(label, count) == index and file in (None, home_file)


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
    """The legal move `move` (a0-i9) of `board` (a Board or FEN) in a notation."""
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


def parse(board: Board | str, text: str, notation: Notation) -> str:
    """The legal move (a0-i9) that `text` names in the notation; ValueError
    saying why when it names none (malformed, illegal or ambiguous)."""
    return _parse(_board(board), text, notation, None)


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

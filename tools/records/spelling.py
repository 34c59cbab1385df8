"""A move's description and its spellings, the machinery under
tools/records/notation.py (whose docstring tells the notations' rules).

A legal move is described from the mover's own view (_View, _describe) as
(kind, place, direction, distance-or-file): the structure every notation
shares. _write_wxf, _write_chinese and _write_vietnamese spell a
description; _read_wxf, _read_chinese and _read_vietnamese read a text back
into one whose place may still be a label (front, rear, ...), which
_matches compares with a legal move's description.
"""
import re

from tuong.engine.rows import xiangqi_squares
from tuong.tools.records.quickread import _label_index

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


"""FEN rows, for Xiangqi and the small games: rows from the top, a letter per
piece, digits (one or more) for runs of empty cells, then a space and the
side to move; and the board's two symmetries, the left-right mirror and the
colour flip. Every module that reads or writes a placement, or mirrors or
flips a square, does it here (plain Python, so the tools, the trainer's
numpy arrays and the Cython core's tables all take the same definition)."""
import re
from collections.abc import Collection, Iterable, Sequence
from typing import Any, overload

_TOKEN = re.compile(r"\d+|\D")
# No row is longer (files are named a-z): a longer run is refused before
# it is expanded (a FEN like '2147483648 b' would otherwise build a list of
# two billion cells).
MAX_RUN = 26


def parse_rows(placement: str, letters: Collection[str], game: str) -> list[list[str | None]]:
    """'B2/B2/1WW' -> [['B', None, None], ...] top row first (None: empty).
    ValueError for a letter outside `letters` or a bad run."""
    rows = []
    for text in placement.split("/"):
        row: list[str | None] = []
        for token in _TOKEN.findall(text):
            if token.isdigit():
                if token.startswith("0") or len(token) > 2 or not 0 < int(token) <= MAX_RUN:
                    raise ValueError(f"{game} FEN: bad run of empty cells {token[:12]!r}")
                row += [None] * int(token)
            elif token in letters:
                row.append(token)
            else:
                raise ValueError(f"{game} FEN: unknown letter {token!r} (expected one of "
                                 f"{', '.join(letters)} or digits)")
        rows.append(row)
    return rows


def format_rows(rows: Iterable[Iterable[str | None]]) -> str:
    """The inverse of parse_rows."""
    out = []
    for row in rows:
        text, gap = "", 0
        for cell in row:
            if cell is None:
                gap += 1
                continue
            if gap:
                text += str(gap)
                gap = 0
            text += cell
        out.append(text + (str(gap) if gap else ""))
    return "/".join(out)


def split_fen(fen: str, game: str, sides: Sequence[str] = ("w", "b")) -> tuple[str, str]:
    """(placement, side) of a FEN; ValueError if it has not both."""
    if not isinstance(fen, str) or not fen.split():
        raise ValueError(f"empty {game} FEN")
    fields = fen.split()
    if len(fields) < 2:
        raise ValueError(f"{game} FEN needs a side to move after the board: {fen!r}")
    if fields[1] not in sides:
        raise ValueError(f"{game} FEN: side to move must be {' or '.join(sides)}, "
                         f"not {fields[1]!r}")
    return fields[0], fields[1]


def square_name(file: int, rank: int) -> str:
    return "abcdefghijklmnopqrstuvwxyz"[file] + str(rank + 1)


# -- Xiangqi -------------------------------------------------------------------
# A Xiangqi square as a number: rank * 9 + file, a0 = 0, i9 = 89 (the
# tablebases', the book's and the training data's index).

# Pikafish's letters, and the WXF letters E and H for the elephant and horse.
XIANGQI_LETTERS = "KABNRCPkabnrcpEHeh"


def xiangqi_squares(placement: str) -> list[str | None]:
    """The 90 squares of a Xiangqi FEN placement, a0 first: a letter or None.
    ValueError unless it is 10 rows of 9 cells."""
    rows = parse_rows(placement, XIANGQI_LETTERS, "Xiangqi")
    if len(rows) != 10 or any(len(row) != 9 for row in rows):
        raise ValueError(f"Xiangqi FEN: the placement needs 10 rows of 9 cells: "
                         f"{placement[:120]!r}")
    return [rows[9 - sq // 9][sq % 9] for sq in range(90)]


def xiangqi_placement(squares: Sequence[str | None]) -> str:
    """The FEN placement of 90 squares (a letter or None each, a0 first)."""
    return format_rows([[squares[rank * 9 + f] for f in range(9)] for rank in range(9, -1, -1)])


@overload
def mirror_square(sq: int) -> int: ...
@overload
def mirror_square(sq: Any) -> Any: ...
def mirror_square(sq: Any) -> Any:
    """The left-right mirror of a square number (files a <-> i); works on
    numpy arrays too."""
    return sq - sq % 9 + 8 - sq % 9


@overload
def flip_square(sq: int) -> int: ...
@overload
def flip_square(sq: Any) -> Any: ...
def flip_square(sq: Any) -> Any:
    """The square as the other colour sees it (ranks 0 <-> 9); works on
    numpy arrays too."""
    return (9 - sq // 9) * 9 + sq % 9


def mirror_placement(placement: str) -> str:
    """A FEN placement with files a-i reversed."""
    return format_rows(row[::-1] for row in parse_rows(placement, XIANGQI_LETTERS, "Xiangqi"))


def mirror_move(move: str) -> str:
    """A move with files a-i reversed (h2e2 -> b2e2)."""
    files = "abcdefghi"
    return (files[8 - files.index(move[0])] + move[1]
            + files[8 - files.index(move[2])] + move[3])

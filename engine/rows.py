"""FEN rows for the small games: rows from the top, a letter per piece, digits
(one or more) for runs of empty cells, then a space and the side to move."""
import re

_TOKEN = re.compile(r"\d+|\D")
# No row is longer (files are named a-z): a longer run is refused before
# it is expanded (a FEN like '2147483648 b' would otherwise build a list of
# two billion cells).
MAX_RUN = 26


def parse_rows(placement, letters, game):
    """'B2/B2/1WW' -> [['B', None, None], ...] top row first (None: empty).
    ValueError for a letter outside `letters` or a bad run."""
    rows = []
    for text in placement.split("/"):
        row = []
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


def format_rows(rows):
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


def split_fen(fen, game, sides=("w", "b")):
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


def square_name(file, rank):
    return "abcdefghijklmnopqrstuvwxyz"[file] + str(rank + 1)

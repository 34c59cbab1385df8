"""Where the pieces stand, as the move notations see it: the quick half of
reading a move (tools/records/notation.py).

A notation names a move by its piece's kind, the file it stands on (counted
1-9 from the mover's own right) or its place among the pieces of its kind on
one file, a direction and a distance or the file it arrives on. `Placement`
answers the questions that reading asks (which pieces of a kind stand on a
file, front first; where a piece that moves so arrives) from a 90-square
array, built once from a FEN and kept up to date move by move, instead of
describing every legal move of the position.

Squares here are the mover's own: files 1-9 from the mover's right, ranks
0-9 from the mover's back rank. Kinds are the notations' letters, KAEHRCP.
"""
from tuong.engine.rows import xiangqi_squares

# FEN letter -> our letter, the case kept: Red upper case, Black lower.
_LETTER = {"K": "K", "A": "A", "B": "E", "E": "E", "N": "H", "H": "H", "R": "R", "C": "C",
           "P": "P"}
_LETTER.update({fen.lower(): ours.lower() for fen, ours in list(_LETTER.items())})
_DIGITS = {str(n): [None] * n for n in range(1, 10)}
_FILES = "abcdefghi"
_SQUARES = {f"{name}{rank}": rank * 9 + x for x, name in enumerate(_FILES) for rank in range(10)}
# Own file 1-9 -> own rank 0-9 -> the square's name (a0-i9), for Red and for Black.
_RED_NAMES = {f: [f"{_FILES[9 - f]}{r}" for r in range(10)] for f in range(1, 10)}
_BLACK_NAMES = {f: [f"{_FILES[f - 1]}{9 - r}" for r in range(10)] for f in range(1, 10)}
# The rank a piece of a diagonal mover's kind moves by, by how many files it crosses.
_STEP = {"H": {1: 2, 2: 1}, "A": {1: 1}, "E": {2: 2}}
# Own file 1-9 -> [(own rank, square)] front first, for Red and for Black.
_RED_FILES = {f: [(r, r * 9 + 9 - f) for r in range(9, -1, -1)] for f in range(1, 10)}
_BLACK_FILES = {f: [(9 - y, y * 9 + f - 1) for y in range(10)] for f in range(1, 10)}


class Placement:
    """The pieces of a position: `cells[rank * 9 + file]` (a0 first) is a
    piece letter (KAEHRCP, Red's upper case, Black's lower) or None; `red`:
    Red is to move."""

    __slots__ = ("cells", "red")

    def __init__(self, fen: str) -> None:
        fields = fen.split()
        self.red = fields[1] in ("w", "r")
        cells: list[str | None] = []
        try:
            for row in reversed(fields[0].split("/")):
                for char in row:
                    if char in _DIGITS:
                        cells += _DIGITS[char]
                    else:
                        cells.append(_LETTER[char])
        except KeyError:
            cells = []
        if len(cells) != 90:             # not as Board.fen() writes it: the long way
            cells = [None if c is None else _LETTER[c] for c in xiangqi_squares(fields[0])]
        self.cells = cells

    def push(self, move: str) -> None:
        """Play a move (a0-i9) that is legal here."""
        cells = self.cells
        start = _SQUARES[move[:2]]
        cells[_SQUARES[move[2:]]] = cells[start]
        cells[start] = None
        self.red = not self.red

    def on_file(self, kind: str, file: int) -> list[int]:
        """The own ranks of the mover's pieces of a kind on own file 1-9, front first."""
        cells = self.cells
        if self.red:
            return [rank for rank, sq in _RED_FILES[file] if cells[sq] == kind]
        letter = kind.lower()
        return [rank for rank, sq in _BLACK_FILES[file] if cells[sq] == letter]

    def crowded(self, kind: str) -> dict[int, list[int]]:
        """{own file: own ranks, front first} of the files on which two or more
        of the mover's pieces of a kind stand."""
        letter = kind if self.red else kind.lower()
        files = {sq % 9 for sq, cell in enumerate(self.cells) if cell == letter}
        found = {}
        for x in files:
            file = 9 - x if self.red else x + 1
            ranks = self.on_file(kind, file)
            if len(ranks) > 1:
                found[file] = ranks
        return found

    def move(self, kind: str, file: int, rank: int, direction: str, amount: int) -> str | None:
        """The move (a0-i9) of a piece of a kind from own square (file, rank)
        in a direction (+ forward, - back, = sideways) by a distance along
        its file or to a file (as the notations count: the file it arrives
        on when it leaves its file), or None when no such move is shaped."""
        if kind in _STEP:                # diagonal movers: to a file, never sideways
            step = _STEP[kind].get(abs(amount - file))
            if step is None or direction == "=":
                return None
            to_file, to_rank = amount, rank + step if direction == "+" else rank - step
        elif direction == "=":
            if amount == file:
                return None
            to_file, to_rank = amount, rank
        else:
            to_file, to_rank = file, rank + amount if direction == "+" else rank - amount
        if not (1 <= to_file <= 9 and 0 <= to_rank <= 9):
            return None
        names = _RED_NAMES if self.red else _BLACK_NAMES
        return names[file][rank] + names[to_file][to_rank]

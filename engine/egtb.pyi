"""Type stub for engine/egtb.pyx: endgame tablebases generated and verified
in memory. The names of endgames are egtblayout's, importable from here too.
Pieces are (colour, kind) pairs: colour 0 Red, 1 Black; kind the index in
LETTERS (K A E H R C P). Keep in step with egtb.pyx (tests/test_typing.py
compares the two)."""
from collections.abc import Callable, Sequence

from tuong.engine.egtblayout import LETTERS as LETTERS
from tuong.engine.egtblayout import MAX_SIZE as MAX_SIZE
from tuong.engine.egtblayout import ORDER as ORDER
from tuong.engine.egtblayout import domain as domain
from tuong.engine.egtblayout import draws_proven as draws_proven
from tuong.engine.egtblayout import name_of as name_of
from tuong.engine.egtblayout import parse_name as parse_name

class Table:
    """One endgame's values in memory (generated here or read from a file)."""

    @property
    def name(self) -> str:
        """The table's material, as players write it ('KRAvKEE')."""
    @property
    def max_dtm(self) -> int:
        """The longest distance to mate in the table, in plies."""
    def __init__(self, name: str) -> None:
        """An empty table of the material `name`; ValueError if malformed or too large."""
    @property
    def size(self) -> int:
        """The number of positions (index values), either side to move."""
    def pieces(self) -> list[tuple[int, int]]:
        """The table's pieces as [(colour, kind)], in table order."""
    def captures(self) -> list[tuple[int, str]]:
        """(piece number, name of the table a capture of it leads to)."""
    def link(self, captured: int, sub: Table, flip: bool) -> None:
        """Say where a capture of piece `captured` leads."""
    def verify(self, threads: int = 2) -> int:
        """How many positions disagree with their moves (0 for a sound table)."""
    def generate(self, threads: int = 2, progress: Callable[[int], object] | None = None) -> None:
        """Fill the table (smaller tables linked first); `progress(d)` after each DTM level."""
    def set_longest(self, plies: int) -> None:
        """Set max_dtm (for a table read from a file)."""
    def value_at(self, index: int) -> int:
        """The value byte at `index`: 0 draw, 255 impossible, else DTM + 1."""
    def index_of(self, squares: Sequence[int], side: int) -> int:
        """The index of (squares in table order, side to move); -1 if a square is off its domain."""
    def position_at(self, index: int) -> tuple[list[int], int] | None:
        """(squares in table order, side to move), or None for two pieces on a square."""
    def folded_size(self) -> int:
        """Bytes of folded()."""
    def folded(self) -> bytes:
        """The values with the left-right mirror folded away."""
    def unfold(self, data: bytes) -> None:
        """Fill the values from folded() data."""

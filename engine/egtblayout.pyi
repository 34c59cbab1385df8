"""Type stub for engine/egtblayout.pyx: the names of endgames, the squares
each piece can stand on, and (for the Cython modules) a position's index and
the folded values of a file. Pieces are (colour, kind) pairs: colour 0 Red,
1 Black; kind the index in LETTERS (K A E H R C P)."""
from collections.abc import Iterable

LETTERS: str
"""The piece letters, by kind: 'KAEHRCP'."""
MAX_SIZE: int
"""The most positions one table may hold."""
ORDER: dict[str, int]
"""The order of the pieces within a side's part of a table name (K R C H P A E)."""

def domain(kind: int, colour: int) -> list[int]:
    """The squares (0-89, rank * 9 + file) where a piece can ever stand."""

def parse_name(name: str) -> list[tuple[int, int]]:
    """'KRAvKEE' -> [(colour, kind), ...] in table order; ValueError if malformed."""

def draws_proven(pieces: Iterable[tuple[int, int]]) -> bool:
    """Do the table's draws hold under our rules (at most one side has an attacker)?"""

def name_of(pieces: Iterable[tuple[int, int]]) -> str:
    """The inverse of parse_name: [(colour, kind)] -> 'KRAvKEE'."""


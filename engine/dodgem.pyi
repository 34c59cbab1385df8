"""Type stub for engine/dodgem.pyx: Dodgem's board. Keep in step with
dodgem.pyx (tests/test_typing.py compares the two)."""
from typing import ClassVar

from tuong.engine.game import GameBoard

START_FEN: str
"""The start position, Black to move."""

class DodgemBoard(GameBoard):
    """Dodgem: DodgemBoard(fen=None), FEN like 'B2/B2/1WW b' (rows from the
    top, B and W cars, digits for empty runs; the side letter is the colour
    of the cars to move)."""

    example_move: ClassVar[str]
    start_fen: ClassVar[str]
    def __init__(self, fen: str | None = None) -> None:
        """The start position, or the position of `fen`; ValueError naming a bad FEN."""
    def set_fen(self, fen: str) -> None:
        """Replace the position (and clear the history) from a FEN."""
    def fen(self) -> str:
        """The position as a FEN ('B2/B2/1WW b')."""
    def _check_room(self) -> None:
        """Raise ValueError if the history cannot take another move."""
    @property
    def turn(self) -> str:
        """The side to move: 'b' (Black's cars) or 'w' (White's)."""
    @property
    def side_name(self) -> str:
        """The side to move: 'Black' or 'White'."""

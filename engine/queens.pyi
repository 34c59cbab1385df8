"""Type stub for engine/queens.pyx: the queens game's board. Keep in step
with queens.pyx (tests/test_typing.py compares the two)."""
from typing import ClassVar

from tuong.engine.game import GameBoard

START_FEN: str
"""The empty 8x8 board, the first player to move."""

class QueensBoard(GameBoard):
    """The queens game: QueensBoard(fen=None), FEN like '3/1Q1/*2 b' (rows
    from the top: * stone, Q/q queens, X/x claimed cells of the first/second
    player, digits for empty runs; w: the first player to move). The start
    position is an empty 8x8 board."""

    example_move: ClassVar[str]
    start_fen: ClassVar[str]
    def __init__(self, fen: str | None = None) -> None:
        """The empty 8x8 board, or the position of `fen`; ValueError naming a bad FEN."""
    def set_fen(self, fen: str) -> None:
        """Replace the position (and clear the history) from a FEN."""
    def fen(self) -> str:
        """The position as a FEN ('3/1Q1/*2 b')."""
    @property
    def size(self) -> int:
        """The board's width (and height), 3 to 15."""
    @property
    def claimed(self) -> tuple[int, int]:
        """Cells owned by (the first player, the second), queens included."""
    @property
    def turn(self) -> str:
        """The side to move: 'w' (the first player) or 'b' (the second)."""
    @property
    def side_name(self) -> str:
        """The side to move: 'first player' or 'second player'."""

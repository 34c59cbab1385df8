"""Type stub for engine/tictactoe.pyx: tic-tac-toe's board. Keep in step with
tictactoe.pyx (tests/test_typing.py compares the two)."""
from typing import ClassVar

from tuong.engine.game import GameBoard

START_FEN: str
"""The empty board, X to move."""

class TicTacToeBoard(GameBoard):
    """Tic-tac-toe: TicTacToeBoard(fen=None), FEN like '3/1X1/3 b' (rows
    from the top, X and O, digits for empty runs; w: X to move)."""

    example_move: ClassVar[str]
    start_fen: ClassVar[str]
    def __init__(self, fen: str | None = None) -> None:
        """The empty board, or the position of `fen`; ValueError naming a bad FEN."""
    def set_fen(self, fen: str) -> None:
        """Replace the position (and clear the history) from a FEN."""
    def fen(self) -> str:
        """The position as a FEN ('3/1X1/3 b')."""
    @property
    def turn(self) -> str:
        """The side to move: 'w' (X) or 'b' (O)."""
    @property
    def side_name(self) -> str:
        """The side to move: 'X' or 'O'."""

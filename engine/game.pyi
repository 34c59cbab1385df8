"""Type stub for engine/game.pyx: the board every game shares (GameBoard) and
the search's mate scores. Keep in step with game.pyx (tests/test_typing.py
compares the two)."""
from typing import ClassVar

from typing_extensions import Self

MATE_SCORE: int
"""A mate in n plies scores MATE_SCORE - n (from the side to move)."""
MATE_SCORE_BOUND: int
"""Scores at or beyond this (in absolute value) are mates."""

class GameBoard:
    """A position of some game with the moves played on it. Subclasses give
    the game: its GameOps (attach, in __cinit__), FEN, display and turn."""

    # Every game's board (engine/games.py: Board, TicTacToeBoard, DodgemBoard,
    # QueensBoard) defines the members below; GameBoard itself does not, but
    # code written against any game (GAMES[name](fen).fen()) relies on them,
    # so the stub declares them here.
    example_move: ClassVar[str]
    """A legal first move of the game, for examples and help texts."""
    start_fen: ClassVar[str]
    """The game's start position as a FEN."""
    def __init__(self, fen: str | None = None) -> None:
        """The game's start position, or the position of `fen`; ValueError naming a bad FEN."""
    def set_fen(self, fen: str) -> None:
        """Replace the position (and clear the history) from a FEN."""
    def fen(self) -> str:
        """The position as a FEN."""
    @property
    def turn(self) -> str:
        """The side to move, as the FEN writes it ('w' or 'b')."""
    @property
    def side_name(self) -> str:
        """The side to move, as a player reads it ('Red', 'X', 'first player', ...)."""

    @property
    def game(self) -> str:
        """The game's name, as UCI_Variant spells it."""
    def legal_moves(self) -> list[str]:
        """The legal moves of the side to move, as text ('h2e2')."""
    def push(self, move: str) -> None:
        """Play a move given as text; ValueError (board unchanged) if it is malformed or illegal."""
    def _check_room(self) -> None:
        """Raise ValueError if the state cannot take another move."""
    def pop(self) -> str:
        """Take back the last move and return it (a0-i9 text); IndexError
        on a board with no moves played."""
    def is_legal(self, move: str) -> bool:
        """Whether `move` (text) is a legal move here."""
    @property
    def move_stack(self) -> list[str]:
        """The moves played, oldest first (a copy)."""
    @property
    def ply(self) -> int:
        """The number of moves played on this board."""
    def in_check(self) -> bool:
        """Whether the side to move is in check (always False in a game without check)."""
    def is_check(self) -> bool:
        """Whether the side to move is in check: in_check() under python-chess's name."""
    def is_game_over(self) -> bool:
        """The side to move has no legal move: the game is over."""
    def mover_outcome(self) -> int | None:
        """None while the game goes on; at its end +1, 0, -1: the side to move
        won, drew, lost (every game alike; Xiangqi's Board.outcome() says how
        and why, the repetition rules included)."""
    def rule_outcome(self) -> int | None:
        """None, or +1, 0, -1 for the side to move when the game's own rule ends it here
        although moves remain (Dodgem: a recurring position draws)."""
    @property
    def hash(self) -> int:
        """The position's Zobrist key."""
    def perft(self, depth: int) -> int:
        """The number of leaves of the legal move tree `depth` plies deep."""
    def divide(self, depth: int) -> list[tuple[str, int]]:
        """[(move, perft(depth - 1) after it)] for every legal move."""
    def copy(self) -> Self:
        """An independent copy of the board, its moves included."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

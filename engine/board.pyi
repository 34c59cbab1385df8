"""Type stub for engine/board.pyx: the Xiangqi Board and the functions that
evaluate or trace a position. Keep in step with board.pyx
(tests/test_typing.py compares the two)."""
from collections.abc import Sequence
from typing import ClassVar

from typing_extensions import Buffer, Self

from tuong.engine.game import GameBoard

START_FEN: str
"""The initial position, as Pikafish writes it."""
MAX_FULLMOVE: int
"""The largest FEN move number taken as given (a larger one counts as 1)."""
PIECE_VALUES: dict[str, int]
"""The nominal piece values by FEN letter (K A B N R C P): what SEE and capture ordering count."""
RULE_NAMES: tuple[str, ...]
"""The repetition rules a Board may follow: 'asian', 'check-only'."""
MAX_FEATURES_PER_POSITION: int
"""The most features eval_features() gives one position (trace_fens' room per position)."""

def square_name(sq: int) -> str:
    """The name ('e0') of an engine square number."""

def parse_square(text: str) -> int:
    """'e0' -> mailbox square; ValueError if it is not a board square."""

def move_name(m: int) -> str:
    """The text ('h2e2') of an engine move code."""

class Board(GameBoard):
    """A Xiangqi position with its move history.

    Board(fen=None) starts from the initial position or parses a FEN as
    Pikafish writes it; a bad FEN raises ValueError naming the problem.
    Moves, perft and game over come from GameBoard (engine/game.pyx).
    """

    example_move: ClassVar[str]
    """A legal first move, for examples and help texts: `"h2e2"`."""
    start_fen: ClassVar[str]
    """The initial position's FEN (START_FEN)."""
    def __init__(self, fen: str | None = None) -> None:
        """The initial position, or the position of `fen`; ValueError naming a bad FEN."""
    def set_fen(self, fen: str) -> None:
        """Replace the position (and clear the history) from a FEN; ValueError
        naming a bad FEN (the board is then unchanged)."""
    def fen(self) -> str:
        """The position as a FEN: `"<placement> <w|b> - - 0 <move number>"`,
        e.g. `"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"`."""
    def rescore(self) -> None:
        """Recompute the incremental material + piece-square score from the tables in force."""
    def check_room(self) -> None:
        """Raise ValueError if the history cannot take another move."""
    @property
    def rules(self) -> str:
        """The repetition rules: 'asian' (perpetual check or chase loses) or 'check-only'."""
    @rules.setter
    def rules(self, name: str) -> None: ...
    def repetition(self) -> int | None:
        """The search's verdict on a repeat: 0 draw, 1 win, -1 loss (side to move); None: none."""
    def chases(self, side: str | None = None) -> list[tuple[str, str]]:
        """The sorted (attacker, victim) square pairs `side` (default: the side to move) chases."""
    def repetition_verdict(self) -> dict[str, str] | None:
        """How the game ends if this position is the third occurrence of a
        position (since the last capture, same side to move), judged on the
        moves since its first: None if it is not; else a dict with `"result"`
        (`"1-0"`, `"0-1"`, `"1/2-1/2"`), `"rule"` (`"repetition"`,
        `"perpetual check"`, `"perpetual chase"`) and `"reason"`, a sentence
        saying why (`"Red loses by perpetual check"`)."""
    def gives_check(self, index: int = -1) -> bool:
        """Whether the move at move_stack[index] gave check."""
    @property
    def turn(self) -> str:
        """The side to move: 'w' (Red) or 'b' (Black)."""
    @property
    def side_name(self) -> str:
        """The side to move: 'Red' or 'Black'."""
    def key_history(self) -> list[int]:
        """Keys of the positions before each move, oldest first."""
    def computed_hash(self) -> int:
        """The key computed from scratch (tests compare it to .hash)."""
    def perft(self, depth: int) -> int:
        """Xiangqi's own perft: legality by the danger map, bulk counting."""
    def copy(self) -> Self:
        """An independent copy of the board, its moves and move number included."""

def evaluate(board: Board) -> int:
    """The static evaluation in centipawns, from the side to move (the network's if in force)."""

def evaluate_hand_crafted(board: Board) -> int:
    """The hand-crafted evaluation, whatever is in force."""

def network_check(board: Board) -> tuple[bool, int, int]:
    """(accumulators equal, incremental score, refreshed score) of the network's accumulators."""

def winning_capture(board: Board, threshold: int = 1) -> str | None:
    """A legal capture whose exchange gains at least `threshold` (SEE), or None."""

def eval_features(board: Board) -> tuple[list[tuple[int, float]], float]:
    """The evaluation, linear in the tunable weights: ([(index, coefficient)], residual)."""

def trace_fens(
    fens: Sequence[str],
    indices: Buffer,
    values: Buffer,
    row_start: Buffer,
    residuals: Buffer,
) -> int:
    """eval_features() of many FENs, as CSR rows in the caller's buffers; the entries used."""

def static_exchange_at_least(board: Board, move: str, threshold: int = 0) -> bool:
    """Whether the exchange `move` starts gains at least `threshold` centipawns (SEE)."""

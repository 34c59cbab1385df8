"""Type stub for engine/board.pyx: the Xiangqi Board and the functions that
evaluate or trace a position. Keep in step with board.pyx
(tests/test_typing.py compares the two)."""
from collections.abc import Sequence
from typing import ClassVar, Literal

from typing_extensions import Buffer, Self

from tuong.engine.game import GameBoard
from tuong.engine.outcome import NO_CAPTURE_PLIES as NO_CAPTURE_PLIES
from tuong.engine.outcome import Outcome as Outcome
from tuong.engine.outcome import Verdict as Verdict

START_FEN: str
"""The initial position, as Pikafish writes it."""
MAX_FULLMOVE: int
"""The largest FEN move number (or halfmove clock) taken as given (a larger
move number counts as 1, a larger clock as 0)."""
PIECE_VALUES: dict[str, int]
"""The nominal piece values by FEN letter (K A B N R C P): what SEE and capture ordering count."""
RULE_NAMES: tuple[str, ...]
"""The repetition rules a Board may follow: 'asian', 'check-only'."""
MAX_FEATURES_PER_POSITION: int
"""The most features eval_features() gives one position."""

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
        """The initial position, or the position of `fen` (its halfmove clock
        and move number kept: a missing or malformed one counts as 0 and 1);
        ValueError naming a bad FEN."""
    def set_fen(self, fen: str) -> None:
        """Replace the position (and clear the history) from a FEN; ValueError
        naming a bad FEN (the board is then unchanged)."""
    def fen(self) -> str:
        """The position as a FEN: `"<placement> <w|b> - - <halfmove clock> <move number>"`,
        e.g. `"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"`;
        after `h2e2` it ends `b - - 1 1`."""
    @property
    def halfmove_clock(self) -> int:
        """Plies since the last capture (the FEN's fifth field, Pikafish's
        meaning): the FEN's clock plus the moves pushed since, until a
        capture resets it; push and pop keep it. What outcome()'s
        no-capture draw counts; the search and `hash` ignore it."""
    @property
    def fullmove_number(self) -> int:
        """The FEN's move number now: the start's, plus one after each Black move."""
    def _rescore(self) -> None:
        """Recompute the incremental material + piece-square score from the tables in force."""
    def _check_room(self) -> None:
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
    def repetition_verdict(self) -> Verdict | None:
        """How the game ends if this position is the third occurrence of a
        position (since the last capture, same side to move), judged on the
        moves since its first (under the board's `rules`): None if it is
        not; else a Verdict with `result` (`"1-0"`, `"0-1"`, `"1/2-1/2"`),
        `rule` (`"repetition"`, `"perpetual check"`, `"perpetual chase"`)
        and `reason`, a sentence saying why (`"Red loses by perpetual check"`)."""
    def outcome(
        self, no_capture_plies: int | None = 120, max_plies: int | None = None
    ) -> Outcome | None:
        """How the game has ended here, or None while it goes on.

        Parameters:
            no_capture_plies: a draw once halfmove_clock reaches it (120,
                the 60-move rule; None: no such draw).
            max_plies: a draw once this many moves have been played on the
                board (None, the default: no cap; a match's cap, not a rule).

        Returns:
            An Outcome: `result` (`"1-0"`, `"0-1"`, `"1/2-1/2"`),
            `termination` and `reason`, by the rules in the match referee's
            order (tools/match/referee.py judges every position with this
            method): no legal move loses (`"checkmate"` in check, else
            `"stalemate"`); then repetition_verdict() (`"perpetual check"`,
            `"perpetual chase"`, `"repetition"`); then `"move limit"`
            (`max_plies`, then `no_capture_plies`). Xiangqi has no draw by
            insufficient material."""
    def is_capture(self, move: str) -> bool:
        """Whether the legal move `move` (text: `"h2e2"`) takes a piece.

        Raises:
            ValueError: the move is malformed or illegal here."""
    def gives_check(self, index: int = -1) -> bool:
        """Whether the move at move_stack[index] gave check."""
    @property
    def turn(self) -> Literal["w", "b"]:
        """The side to move: 'w' (Red) or 'b' (Black)."""
    @property
    def side_name(self) -> str:
        """The side to move: 'Red' or 'Black'."""
    def key_history(self) -> list[int]:
        """Keys of the positions before each move, oldest first."""
    def _computed_hash(self) -> int:
        """The key computed from scratch (tests compare it to .hash)."""
    def perft(self, depth: int) -> int:
        """Xiangqi's own perft: legality by the danger map, bulk counting."""
    def copy(self) -> Self:
        """An independent copy of the board, its moves and move number included."""

def evaluate(board: Board) -> int:
    """The static evaluation in centipawns, from the side to move (the network's if in force)."""

def evaluate_hand_crafted(board: Board) -> int:
    """The hand-crafted evaluation, whatever is in force."""

def _network_check(board: Board) -> tuple[bool, int, int]:
    """(accumulators equal, incremental score, refreshed score) of the network's accumulators."""

def winning_capture(board: Board, threshold: int = 1) -> str | None:
    """A legal capture whose exchange gains at least `threshold` (SEE), or None."""

def eval_features(board: Board) -> tuple[list[tuple[int, float]], float]:
    """The evaluation, linear in the tunable weights: ([(index, coefficient)], residual)."""

def _trace_fens(
    fens: Sequence[str],
    indices: Buffer,
    values: Buffer,
    row_start: Buffer,
    residuals: Buffer,
) -> int:
    """eval_features() of many FENs, as CSR rows in the caller's buffers; the entries used."""

def static_exchange_at_least(board: Board, move: str, threshold: int = 0) -> bool:
    """Whether the exchange `move` starts gains at least `threshold` centipawns (SEE)."""

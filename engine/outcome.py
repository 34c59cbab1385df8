"""How a Xiangqi game ends, as typed values: the repetition rules' Verdict
(Board.repetition_verdict()) and a game's Outcome (Board.outcome(), which
the match referee, tools/match/referee.py, judges every position by).

Plain Python under the core: it imports nothing of the engine, so a script
or a tool may name the types without loading the compiled modules.

```python
from tuong.engine.board import Board

board = Board("3k5/4R4/3R5/9/9/9/9/9/9/4K4 b - - 0 1")     # Black is mated
outcome = board.outcome()
print(outcome.result, outcome.termination, outcome.winner)  # 1-0 checkmate w
print(outcome.reason)                                       # Red mates
```
"""
from typing import Literal, NamedTuple, Optional

Result = Literal["1-0", "0-1", "1/2-1/2"]
"""A game's result as PGN writes it: Red won, Black won, or a draw."""
Rule = Literal["repetition", "perpetual check", "perpetual chase"]
"""The repetition rule that decided a repeated position: a plain repetition
(a draw), or a loss for the side that checked or chased throughout."""
Termination = Literal["checkmate", "stalemate", "repetition", "perpetual check",
                      "perpetual chase", "move limit"]
"""How a game ended by the rules: the side to move has no legal move
(`checkmate` when in check, else `stalemate`: both lose in Xiangqi), a
repetition rule (see Rule), or a move-count draw (`move limit`: the plies
without a capture, or the match's cap on a game's length)."""
Side = Literal["w", "b"]
"""A side as the FEN writes it: `"w"` Red, `"b"` Black."""

NO_CAPTURE_PLIES = 120
"""The plies without a capture that draw a game (60 moves each, the rule
Pikafish's `rule60` and the match referee apply)."""
SIDE_NAMES = {"w": "Red", "b": "Black"}
"""A side's name by its FEN letter."""


def loss_for(side: str) -> Result:
    """The result of a loss for `side` (a FEN side letter): `"0-1"` for Red
    (`"w"`), `"1-0"` for Black (`"b"`)."""
    return "0-1" if side == "w" else "1-0"


def _other(side: Side) -> Side:
    return "b" if side == "w" else "w"


class Verdict(NamedTuple):
    """The repetition rules' verdict on a position that occurs for the third
    time (Board.repetition_verdict()): a NamedTuple, so `result, rule,
    reason = verdict` unpacks it."""

    result: Result
    """`"1-0"`, `"0-1"` or `"1/2-1/2"`."""
    rule: Rule
    """`"repetition"` (a draw), `"perpetual check"` or `"perpetual chase"` (a loss)."""
    reason: str
    """The verdict as a sentence (`"Red loses by perpetual check"`)."""

    @classmethod
    def draw(cls) -> "Verdict":
        """A plain repetition: a draw."""
        return cls("1/2-1/2", "repetition", "Draw by repetition")

    @classmethod
    def loss(cls, loser: Side, rule: Literal["perpetual check", "perpetual chase"],
             chase: Optional[tuple[str, str]] = None) -> "Verdict":
        """A loss for `loser` by `rule`; `chase`, the (attacker, victim) of a
        perpetual chase as `"horse on c6"`, goes into the reason."""
        reason = f"{SIDE_NAMES[loser]} loses by {rule}"
        if chase is not None:
            reason += f": the {chase[0]} chased the {chase[1]}"
        return cls(loss_for(loser), rule, reason)


class Outcome(NamedTuple):
    """How a game has ended (Board.outcome()): a NamedTuple, so `result,
    termination, reason = outcome` unpacks it, as the referee's Game.finish
    takes it."""

    result: Result
    """`"1-0"`, `"0-1"` or `"1/2-1/2"`."""
    termination: Termination
    """How it ended: `checkmate`, `stalemate`, `repetition`, `perpetual check`,
    `perpetual chase` or `move limit`."""
    reason: str
    """The ending as a sentence (`"Red mates"`, `"Draw: 120 plies without a capture"`)."""

    @property
    def winner(self) -> Optional[Side]:
        """The side that won (`"w"` Red, `"b"` Black), or None for a draw."""
        if self.result == "1-0":
            return "w"
        return "b" if self.result == "0-1" else None

    @classmethod
    def no_move(cls, side: Side, in_check: bool) -> "Outcome":
        """`side` is to move and has no legal move: it loses, mated when in check."""
        if in_check:
            return cls(loss_for(side), "checkmate", f"{SIDE_NAMES[_other(side)]} mates")
        return cls(loss_for(side), "stalemate", f"{SIDE_NAMES[side]} has no legal move and loses")

    @classmethod
    def of_verdict(cls, verdict: Verdict) -> "Outcome":
        """The game's end by a repetition Verdict."""
        return cls(verdict.result, verdict.rule, verdict.reason)

    @classmethod
    def ply_limit(cls, max_plies: int) -> "Outcome":
        """A draw by a cap of `max_plies` on the game's length (a match's,
        not a rule of Xiangqi)."""
        return cls("1/2-1/2", "move limit", f"Draw by the {max_plies}-ply limit")

    @classmethod
    def no_capture(cls, plies: int) -> "Outcome":
        """A draw after `plies` plies without a capture."""
        return cls("1/2-1/2", "move limit", f"Draw: {plies} plies without a capture")

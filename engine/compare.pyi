"""Type stub for engine/compare.pyx: the founding texts' plain algorithms,
for tuong-compare. Keep in step with compare.pyx (tests/test_typing.py
compares the two)."""
from typing import Any

from tuong.engine.game import GameBoard

ALGORITHMS: dict[str, int]
"""The algorithms by name: 'minimax', 'alphabeta', 'negascout'."""

class Comparison:
    """Runs the plain algorithms on copies of a board; one table, cleared
    before every run so that runs do not help each other."""

    def run(
        self,
        board: GameBoard,
        algorithm: str,
        depth: int,
        table: bool = False,
        ordering: bool = False,
        budget: float = 0.0,
    ) -> dict[str, Any]:
        """Search board to `depth`: {nodes, leaves, seconds, value, best, finished}."""

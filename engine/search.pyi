"""Type stub for engine/search.pyx: the Searcher and what a search returns.
Keep in step with search.pyx (tests/test_typing.py compares the two)."""
from collections.abc import Callable, Iterable

from typing_extensions import Self

from tuong.engine.game import GameBoard
from tuong.engine.report import SearchInfo

class SearchResult:
    """What a finished search found. best is None when there is no legal move."""

    best: str | None
    """The move to play, or None when there is none."""
    ponder: str | None
    """The expected reply, or None."""
    score: int | None
    """Centipawns from the side to move; None when mate is set."""
    mate: int | None
    """Mate in N moves (negative: being mated), else None."""
    depth: int
    """The last depth completed."""
    nodes: int
    """Nodes searched, all threads together."""
    pv: list[str]
    """The principal variation, best first."""
    def __init__(
        self,
        best: str | None = None,
        ponder: str | None = None,
        score: int | None = 0,
        mate: int | None = None,
        depth: int = 0,
        nodes: int = 0,
        pv: Iterable[str] = (),
    ) -> None: ...

class Searcher:
    """Owns a transposition table and the search threads, and searches any
    game's board (a GameBoard). One search at a time; stop() and
    set_limits() are safe from any thread."""

    def __new__(cls, hash_mb: int = 16, threads: int = 1) -> Self:
        """A searcher with a `hash_mb` MB table and `threads` search threads."""
    @property
    def threads(self) -> int:
        """The number of search threads."""
    def set_threads(self, n: int) -> None:
        """Use n search threads: the caller's and n - 1 helpers, parked between searches."""
    def resize(self, megabytes: int) -> None:
        """Set the transposition table size in MB (this empties it)."""
    def clear(self) -> None:
        """Empty the transposition table and the move-ordering memory."""
    def hashfull(self) -> int:
        """Per mille of the transposition table in use."""
    def probe(
        self, board: GameBoard
    ) -> tuple[str | None, tuple[int | None, int | None] | None,
               tuple[int | None, int | None] | None, int] | None:
        """What the table holds for `board`: None, or (move text or None,
        lower bound, upper bound, depth), each bound None or (cp, mate) from
        the side to move. Not during a search."""
    def stop(self) -> None:
        """Stop the search in progress (safe from any thread)."""
    def set_limits(self, soft_ms: float | None = None, hard_ms: float | None = None) -> None:
        """Time limits counted from now (the start of the search, or a ponderhit)."""
    def search(
        self,
        board: GameBoard,
        *,
        on_info: Callable[[SearchInfo], object] | None = None,
        depth: int | None = None,
        nodes: int | None = None,
        soft_ms: float | None = None,
        hard_ms: float | None = None,
        multipv: int = 1,
        banned: Iterable[str] = (),
    ) -> SearchResult:
        """prepare() then run(): search board (which is not changed) and return a SearchResult."""
    def prepare(
        self,
        board: GameBoard,
        *,
        depth: int | None = None,
        nodes: int | None = None,
        soft_ms: float | None = None,
        hard_ms: float | None = None,
        multipv: int = 1,
        banned: Iterable[str] = (),
    ) -> None:
        """Set up a search of `board`: from here on stop() and set_limits() act on it."""
    def run(self, on_info: Callable[[SearchInfo], object] | None = None) -> SearchResult:
        """Search what prepare() set up; on_info gets a SearchInfo per iteration."""
    def prepare_perft(self, board: GameBoard, depth: int) -> None:
        """As prepare(), for a perft divide at `depth` (run_perft() does it)."""
    def run_perft(
        self, on_move: Callable[[str, int], object] | None = None
    ) -> tuple[list[tuple[str, int]], bool]:
        """([(move, count)], finished) of the prepared perft; on_move(move, count) as it goes."""
    def perft(
        self, board: GameBoard, depth: int, on_move: Callable[[str, int], object] | None = None
    ) -> tuple[list[tuple[str, int]], bool]:
        """prepare_perft() then run_perft()."""

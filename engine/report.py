"""What a search reports after each iteration, as one typed record.

The searcher (engine/search.pyx) calls its on_info callback once per
finished iteration, per MultiPV line, and for an aspiration fail after the
first second; the dialects (protocol/uci.py, ucci.py, xboard.py) turn each
report into their own line. SearchInfo is that report: a misspelt field is
an AttributeError where a dict's .get(key, 0) printed 0, and a report
without a field cannot be made at all.

Plain Python, importing nothing: the core and the protocol may both use it.
"""
from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchInfo:
    """One report of a search (`Searcher.search(on_info=...)` gets one per
    iteration and MultiPV line). Made by the searcher; frozen."""
    depth: int                  # the iteration's nominal depth, in plies
    """The iteration's nominal depth, in plies."""
    seldepth: int               # the deepest ply reached (at least depth)
    """The deepest ply reached (at least `depth`)."""
    multipv: int                # 1 for the best line, 2 for the next, ...
    """1 for the best line, 2 for the next, ..."""
    score: Optional[int]        # centipawns, side to move; None when mate is set
    """Centipawns from the side to move; None when `mate` is set."""
    mate: Optional[int]         # mate in N moves (negative: being mated); else None
    """Mate in N moves (negative: being mated); else None."""
    bound: Optional[str]        # "lower" / "upper" for an aspiration fail; None: exact
    """`"lower"` / `"upper"` for an aspiration fail; None when exact."""
    nodes: int                  # every thread's nodes so far
    """Every thread's nodes so far."""
    nps: int
    """Nodes per second."""
    hashfull: int               # per mille of the transposition table in use
    """Per mille of the transposition table in use."""
    time_ms: int                # since the search started
    """Milliseconds since the search started."""
    pv: tuple                   # the line, as the game writes moves ("h2e2", ...)
    """The line, as the game writes moves (`"h2e2"`, ...), a tuple."""
    tbhits: int = 0             # endgame table probes answered in this search
    """Endgame table probes answered in this search."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "pv", tuple(self.pv))

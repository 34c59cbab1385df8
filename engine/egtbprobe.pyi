"""Type stub for engine/egtbprobe.pyx: the tables the search probes."""
from collections.abc import Iterable

from tuong.engine.egtb import Table
from tuong.engine.egtblayout import draws_proven as draws_proven

def material_key(pieces: Iterable[tuple[int, int]]) -> int:
    """The key of [(colour, kind)]."""

def install(tables: Iterable[Table]) -> None:
    """Make the search probe these Tables (both colourings of each); [] for none."""

def hits() -> int:
    """Probes answered since the last reset_hits()."""

def reset_hits() -> None:
    """Start counting probes answered from 0."""


"""Type stub for engine/nnue.pyx: putting a network (engine/network.py) in
force. Keep in step with nnue.pyx (tests/test_typing.py compares the two)."""
from collections.abc import Iterable

from tuong.engine.network import Network

def install(net: Network, name: str = "") -> None:
    """Put a checked network (engine.network.Network) in force."""

def disable() -> None:
    """Back to the hand-crafted evaluation."""

def active() -> tuple[str, str] | None:
    """(file name, description) of the network in force, or None."""

def features_of(position_squares: Iterable[tuple[int, int, int]],
                bucketed: bool = False) -> tuple[list[int], list[int]]:
    """The active features of [(kind 0..13, file, rank)] for both perspectives: (Red's, Black's);
    `bucketed`: a 6-bucket network's transformer features."""

"""Type stub for engine/nnue.pyx: putting a network (engine/network.py) in
force. Keep in step with nnue.pyx (tests/test_typing.py compares the two)."""
from collections.abc import Iterable

from tuong.engine.network import Network

def install(net: Network, name: str = "") -> None:
    """Put a checked network (engine.network.Network) in force."""

SIMD_PATHS: tuple[str, ...]

def simd_paths() -> list[str]:
    """The loops' paths this processor runs ("portable", "avx2", "avx512")."""

def simd() -> str:
    """The path in use."""

def use_simd(name: str) -> None:
    """Use a path of simd_paths(); ValueError for one this processor does not run."""

def disable() -> None:
    """Back to the hand-crafted evaluation."""

def active() -> tuple[str, str] | None:
    """(file name, description) of the network in force, or None."""

def features_of(position_squares: Iterable[tuple[int, int, int]],
                bucketed: bool = False) -> tuple[list[int], list[int]]:
    """The active features of [(kind 0..13, file, rank)] for both perspectives: (Red's, Black's);
    `bucketed`: a 6-bucket network's transformer features."""

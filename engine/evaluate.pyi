"""Type stub for engine/evaluate.pyx: the hand-crafted evaluation's weights
(engine/weights.py's format). Keep in step with evaluate.pyx
(tests/test_typing.py compares the two)."""
import os
from typing import Any

def load_weights(path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Read a weights file (None: the shipped one), put it in force, return its weights."""

def current_weights() -> dict[str, Any] | None:
    """The weights in force (a copy), or None if none have been loaded."""

def ensure_weights() -> None:
    """Load the default weights file unless weights are installed."""

def install(data: dict[str, Any]) -> None:
    """Put validated weights (engine.weights.validate) into the C tables."""

"""Which evaluation is in force: the network (engine/nnue.pyx, files in
engine/network.py's format) or the hand-crafted one (engine/evaluate.pyx,
weights files in engine/weights.py's format). EvalFile names either; a
network file is known by its magic bytes."""
import os
from pathlib import Path

from tuong.engine import evaluate, network, nnue, weights

# The network the package ships, the default when it is there.
DEFAULT_NETWORK = Path(__file__).with_name("default.nnue")


def default_path() -> Path | None:
    return DEFAULT_NETWORK if DEFAULT_NETWORK.exists() else None


def load(path: str | os.PathLike[str] | None = None) -> str:
    """Put the evaluation in `path` in force (None: the shipped default, the
    network if the package has one, else the hand-crafted weights) and
    return describe(). ValueError naming the problem (NetworkError,
    WeightsError) if the file is missing or bad: then nothing changes."""
    if path is None:
        path = default_path()
    # The hand-crafted tables stay loaded under a network: the incremental
    # material score and the engine's tools read them.
    evaluate.ensure_weights()
    if path is not None and network.is_network_file(path):
        nnue.install(network.read(path), Path(path).name)
    else:
        try:
            evaluate.load_weights(None if path is None else path)
        except weights.NotJSONError:
            # Neither kind: say both, not only what a weights file lacks.
            raise weights.WeightsError(f"{path}: neither a network (.nnue) nor a weights "
                                       "file (JSON)") from None
        nnue.disable()
    return describe()


def describe() -> str:
    """A line naming the evaluation in force."""
    active = nnue.active()
    if active:
        name, description = active
        return f"NNUE network {name}" + (f" ({description})" if description else "")
    return "hand-crafted evaluation"

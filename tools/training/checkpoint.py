"""A training run's checkpoint: the whole state written after every epoch
(weights, the optimiser's moments, the random generator, the losses, the
best epoch's weights) and read back by tuong-train --resume."""
import json
import os


class Run:
    """What a training run is and where it stands: written after every
    epoch (the checkpoint) and read back by --resume."""

    def __init__(self, model, opt, rng, settings):
        self.model, self.opt, self.rng, self.settings = model, opt, rng, settings
        self.epoch, self.history, self.best = 0, [], None

    def save(self, path):
        import numpy as np
        arrays = {f"param{i}": p for i, p in enumerate(self.model.params())}
        arrays.update({f"m{i}": m for i, m in enumerate(self.opt.m)})
        arrays.update({f"v{i}": v for i, v in enumerate(self.opt.v)})
        if self.best is not None:
            arrays.update({f"best{i}": p for i, p in enumerate(self.best)})
        meta = {"settings": self.settings, "epoch": self.epoch, "history": self.history,
                "adam_t": self.opt.t, "lr": self.opt.lr,
                "rng": self.rng.bit_generator.state}
        arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
        partial = path + ".partial"
        with open(partial, "wb") as f:          # whole or not at all: a kill mid-write
            np.savez(f, **arrays)               # leaves the last checkpoint
        os.replace(partial, path)

    def load(self, path):
        """Take the checkpoint's state; ValueError if it is of other data or settings."""
        import numpy as np
        with np.load(path) as saved:
            meta = json.loads(bytes(saved["meta"]).decode())
            if meta["settings"] != self.settings:
                differ = sorted(k for k in set(meta["settings"]) | set(self.settings)
                                if meta["settings"].get(k) != self.settings.get(k))
                raise ValueError(f"{path} is a run of other data or settings "
                                 f"({', '.join(differ)} differ)")
            for i, p in enumerate(self.model.params()):
                p[...] = saved[f"param{i}"]
            for i, m in enumerate(self.opt.m):
                m[...] = saved[f"m{i}"]
            for i, v in enumerate(self.opt.v):
                v[...] = saved[f"v{i}"]
            if "best0" in saved:
                self.best = [saved[f"best{i}"].copy() for i in range(len(self.model.params()))]
        self.epoch, self.history = meta["epoch"], [tuple(h) for h in meta["history"]]
        self.opt.t, self.opt.lr = meta["adam_t"], meta["lr"]
        self.rng.bit_generator.state = meta["rng"]


def saved_meta(path):
    """A checkpoint's record of its run (settings, epoch, ...), or None (no
    checkpoint, or one that cannot be read: the resume then says why)."""
    import numpy as np
    try:
        with np.load(path) as saved:
            return json.loads(bytes(saved["meta"]).decode())
    except Exception:           # a cut or foreign file: numpy's many errors
        return None


def saved_scale(path):
    """The K a checkpoint was trained with, or None (see saved_meta)."""
    try:
        return float(saved_meta(path)["settings"]["scale"])
    except (TypeError, KeyError, ValueError):
        return None


def check_resume(parser, checkpoint, epochs):
    """Refuse --resume, before the data is read, when there is no checkpoint
    or it has trained past --epochs (a run would train nothing and write the
    checkpoint's network as if it were asked for)."""
    if not os.path.exists(checkpoint):
        parser.error(f"--resume: no checkpoint {checkpoint}")
    meta = saved_meta(checkpoint)
    done = meta.get("epoch") if isinstance(meta, dict) else None
    if isinstance(done, int) and done > epochs:
        parser.error(f"--resume: {checkpoint} has trained {done} epochs already, more than "
                     f"--epochs {epochs} (give --epochs {done} or more)")

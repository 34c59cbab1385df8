"""Loss of training checkpoints' kept (best) weights on positions no run saw:
    python heldout.py DATA START CKPT...
DATA's records from START on (its datagen went on after the trainings)."""
import json
import sys

import numpy as np

from tuong.tools.training import dataset, train

path, start = sys.argv[1], int(sys.argv[2])
raw = dataset.read_range(path, start, dataset.count(path) - start)
print(f"{len(raw['score']):,} held-out positions from record {start:,}")
for ckpt in sys.argv[3:]:
    with np.load(ckpt) as saved:
        meta = json.loads(bytes(saved["meta"]).decode())
        st = meta["settings"]
        model = train.Model(st["hidden"], np.random.default_rng(0), st.get("buckets", 1),
                            st.get("layer", 0))
        for i, p in enumerate(model.params()):
            p[...] = saved[f"best{i}"]
    data = train.Data(raw, st["scale"], st["lambda"], model.buckets)
    print(f"{ckpt}: {train.evaluate_loss(model, data, st['scale'], 16384):.6f} "
          f"(K {st['scale']}, its validation {min(h[2] for h in meta['history']):.6f})",
          flush=True)

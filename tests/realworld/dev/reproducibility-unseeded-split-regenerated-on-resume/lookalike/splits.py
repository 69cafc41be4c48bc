import json
import os

import numpy as np


def get_or_make_splits(n_items, val_fraction, run_dir, seed=None):
    path = os.path.join(run_dir, "split_indices.json")
    if os.path.exists(path):
        with open(path) as f:
            saved = json.load(f)
        return saved["train"], saved["val"]
    idx = np.random.default_rng(seed).permutation(n_items).tolist()
    n_val = max(1, int(round(n_items * val_fraction)))
    split = {"train": idx[n_val:], "val": idx[:n_val]}
    os.makedirs(run_dir, exist_ok=True)
    with open(path, "w") as f:
        json.dump(split, f)
    return split["train"], split["val"]

"""Augmentation check: build the default config's training set through the project's own loader
factory and read the same 60 training patches twice (as two epochs would). With random dihedral,
shift, brightness and noise augmentation the second read must differ from the first for
(nearly) every patch; if the augmented patches were frozen, they come back identical.
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import sys

import numpy as np

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
sys.path.insert(0, project)
os.chdir(project)

from weavecheck.config import load_config  # noqa: E402
from weavecheck.data.datasets import build_loaders  # noqa: E402

cfg = load_config("configs/default.yaml")
train_loader, _ = build_loaders(cfg.data)
ds = train_loader.dataset
idx = range(60)
first = [np.asarray(ds[i][0], dtype=np.float32).copy() for i in idx]
second = [np.asarray(ds[i][0], dtype=np.float32).copy() for i in idx]
changed = float(np.mean([not np.allclose(a, b) for a, b in zip(first, second)]))
print(json.dumps({"metric": "fraction_of_train_patches_that_change_between_epochs", "value": changed,
                  "pass": bool(changed >= 0.9)}))

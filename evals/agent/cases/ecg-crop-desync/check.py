"""Alignment check on the training pipeline of the default config: after the training transforms, the QRS
annotation must sit on the QRS complexes of the signal. QRS complexes are the steepest part of an ECG, so
value = mean |d signal/dt| inside samples labelled QRS / mean |d signal/dt| elsewhere, averaged over 96 training
items (about 3 when the labels are on their waves, about 1 when they are not). Pass: value > 1.8.
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import sys

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
sys.path.insert(0, project)
os.chdir(project)

import numpy as np  # noqa: E402

from ecgseg.config import load_config  # noqa: E402
from ecgseg.data import build_datasets  # noqa: E402

cfg = load_config("configs/default.yaml", ["data.n_train=96", "data.n_val=8"])
train = build_datasets(cfg)["train"]
ratios = []
for i in range(len(train)):
    item = train[i]
    sig = np.asarray(item["inputs"], dtype=np.float64).reshape(-1, np.shape(item["inputs"])[-1])[0]
    mask = np.asarray(item["targets"])
    slope = np.abs(np.diff(sig))
    qrs = mask[1:] == 2
    if qrs.sum() >= 5 and (~qrs).sum() >= 5:
        ratios.append(slope[qrs].mean() / slope[~qrs].mean())
value = float(np.mean(ratios)) if ratios else 0.0
print(json.dumps({"metric": "qrs_slope_ratio_after_train_transforms", "value": value, "items": len(ratios),
                  "pass": bool(value > 1.8)}))

"""Leakage check: no customer row may appear in both train and validation, and the
validation F1 must predict the F1 on a fresh month (gap < 0.1).

Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import subprocess
import sys
import tempfile

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
out = tempfile.mkdtemp(prefix="churn_check_")
subprocess.run([sys.executable, "train.py", "--epochs", "25", "--out-dir", out], cwd=project, check=True,
               stdout=subprocess.DEVNULL)
month = subprocess.run([sys.executable, "score_month.py", "--run-dir", out], cwd=project, check=True,
                       capture_output=True, text=True).stdout.strip().splitlines()[-1]
with open(os.path.join(out, "metrics.json")) as f:
    val_f1 = json.load(f)["best_val"]["f1"]
month_f1 = json.loads(month)["f1"]

sys.path.insert(0, project)
os.chdir(project)
import numpy as np
from churn.config import load_config
from churn.data import build_splits
from churn.simulate import NUMERIC

_, train, val = build_splits(load_config("configs/default.yaml"))
key = lambda t: {tuple(r) for r in np.stack([t[c] for c in NUMERIC], 1).tolist()}
shared = len(key(train) & key(val))
gap = val_f1 - month_f1
print(json.dumps({"metric": "val_f1_minus_fresh_month_f1", "value": gap, "shared_rows": shared,
                  "val_f1": val_f1, "month_f1": month_f1, "pass": shared == 0 and abs(gap) < 0.1}))

"""Validation check: the validation accuracy reported by training (EMA weights, the default) must exceed 0.8
after 2 epochs (the live weights reach ~1.0; chance is 0.25).
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import subprocess
import sys
import tempfile

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
out = tempfile.mkdtemp(prefix="check_")
subprocess.run([sys.executable, "train.py", "--set", "epochs=2", "--set", f"out_dir={out}"], cwd=project, check=True,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
with open(os.path.join(out, "metrics.json")) as f:
    m = json.load(f)
value = m["final"]["val_acc"]
print(json.dumps({"metric": "val_acc_after_2_epochs", "value": value, "pass": bool(value > 0.8)}))

"""Accumulation check: batch 32 x 8 accumulation steps must reach a validation logloss below 0.475 (plain batch 256 reaches ~0.456; last-micro-batch-only gradients stay above 0.5).
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import subprocess
import sys
import tempfile

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
out = tempfile.mkdtemp(prefix="check_")
subprocess.run([sys.executable, "train.py", *["--epochs", "6"], "--out", out], cwd=project, check=True, stdout=subprocess.DEVNULL)
with open(os.path.join(out, "metrics.json")) as f:
    m = json.load(f)
value = m["final"]["logloss"]
print(json.dumps({"metric": "final_val_logloss", "value": value, "pass": bool(value < 0.475)}))

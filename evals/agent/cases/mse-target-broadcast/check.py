"""Fit check: validation R^2 must exceed 0.9 (a model that predicts the mean scores about 0).
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import subprocess
import sys
import tempfile

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
out = tempfile.mkdtemp(prefix="check_")
subprocess.run([sys.executable, "fit_prices.py", *["--epochs", "25"], "--out", out], cwd=project, check=True, stdout=subprocess.DEVNULL)
with open(os.path.join(out, "metrics.json")) as f:
    m = json.load(f)
value = m["val_r2"]
print(json.dumps({"metric": "val_r2", "value": value, "pass": bool(value > 0.9)}))

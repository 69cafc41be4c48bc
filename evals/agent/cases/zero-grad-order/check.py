"""Learning check: validation MSE must fall below 0.05 (an unchanged model stays near 3.6).
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import subprocess
import sys
import tempfile

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
out = tempfile.mkdtemp(prefix="check_")
subprocess.run([sys.executable, "train.py", *["--epochs", "15"], "--out", out], cwd=project, check=True, stdout=subprocess.DEVNULL)
with open(os.path.join(out, "metrics.json")) as f:
    m = json.load(f)
value = m["final"]["val_mse"]
print(json.dumps({"metric": "final_val_mse", "value": value, "pass": bool(value < 0.05)}))

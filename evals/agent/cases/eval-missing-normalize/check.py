"""Evaluation check: validation accuracy must exceed 0.7 after 4 epochs (training reaches ~85%; chance is 25%).
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import subprocess
import sys
import tempfile

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
out = tempfile.mkdtemp(prefix="check_")
subprocess.run([sys.executable, "train.py", *["--epochs", "4"], "--out", out], cwd=project, check=True, stdout=subprocess.DEVNULL)
with open(os.path.join(out, "metrics.json")) as f:
    m = json.load(f)
value = m["final"]["val_acc"]
print(json.dumps({"metric": "val_acc", "value": value, "pass": bool(value > 0.7)}))

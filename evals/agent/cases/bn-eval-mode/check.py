"""Inference check: accuracy when patches are scored one at a time must exceed 0.9 (batched validation reaches ~1.0).
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import subprocess
import sys
import tempfile

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
out = tempfile.mkdtemp(prefix="check_")
subprocess.run([sys.executable, "train_cnn.py", *["--epochs", "3"], "--out", out], cwd=project, check=True, stdout=subprocess.DEVNULL)
with open(os.path.join(out, "metrics.json")) as f:
    m = json.load(f)
value = m["test_acc_single_patch"]
print(json.dumps({"metric": "test_acc_single_patch", "value": value, "pass": bool(value > 0.9)}))

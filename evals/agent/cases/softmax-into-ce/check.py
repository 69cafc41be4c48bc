"""Loss-floor check: with 5 separable classes the training loss must go well below 0.9 (the floor of CE over already-softmaxed outputs).
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import subprocess
import sys
import tempfile

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
out = tempfile.mkdtemp(prefix="check_")
subprocess.run([sys.executable, "train_classifier.py", *["--epochs", "15"], "--out", out], cwd=project, check=True, stdout=subprocess.DEVNULL)
with open(os.path.join(out, "metrics.json")) as f:
    m = json.load(f)
value = m["final"]["train_loss"]
print(json.dumps({"metric": "final_train_loss", "value": value, "pass": bool(value < 0.5)}))

"""Field check: after training on plants A+B, accuracy on the audited plant C batch must exceed 0.75
(validation accuracy on A+B is ~0.9; the plant C camera shift is mild).
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import subprocess
import sys
import tempfile

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
out = tempfile.mkdtemp(prefix="check_")
quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
subprocess.run([sys.executable, "train.py", "--set", f"out_dir={out}"], cwd=project, check=True, **quiet)
subprocess.run([sys.executable, "evaluate_field.py", os.path.join(out, "best.pt"), "--out", os.path.join(out, "field.json")],
               cwd=project, check=True, **quiet)
with open(os.path.join(out, "field.json")) as f:
    value = json.load(f)["accuracy"]
print(json.dumps({"metric": "plant_c_field_accuracy", "value": value, "pass": bool(value > 0.75)}))

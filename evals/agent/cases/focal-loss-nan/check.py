"""Numerics check: 1500 steps at the default LR must finish with finite losses.
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import subprocess
import sys
import tempfile

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
out = tempfile.mkdtemp(prefix="focal_check_")
subprocess.run([sys.executable, "train.py", "--max-steps", "1500", "--eval-every", "500", "--out-dir", out],
               cwd=project, check=True, stdout=subprocess.DEVNULL)
with open(os.path.join(out, "metrics.json")) as f:
    m = json.load(f)
final_map = m["history"][-1]["mAP"] if m["history"] else 0.0
ok = m["status"] == "ok" and m["steps_done"] == 1500 and final_map > 0.8
print(json.dumps({"metric": "finite_steps_of_1500", "value": m["steps_done"], "status": m["status"],
                  "final_mAP": final_map, "pass": ok}))

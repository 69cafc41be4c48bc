"""LR-schedule check: after warmup the learning rate of a 6-epoch run must never go back up and must end at
<= 5% of its peak (a warmup followed by one cosine decay over the run).
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import subprocess
import sys
import tempfile

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
out = tempfile.mkdtemp(prefix="check_")
subprocess.run([sys.executable, "train.py", "--set", "epochs=6", "--set", f"out_dir={out}"], cwd=project, check=True,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
with open(os.path.join(out, "steps.json")) as f:
    lrs = [row["lr"] for row in json.load(f)]
peak = max(range(len(lrs)), key=lambda i: lrs[i])
increases = sum(1 for a, b in zip(lrs[peak:], lrs[peak + 1:]) if b > a * (1 + 1e-6))
ends_low = lrs[-1] <= 0.05 * lrs[peak]
print(json.dumps({"metric": "lr_increases_after_peak", "value": increases, "final_lr_over_peak": lrs[-1] / lrs[peak],
                  "pass": bool(increases == 0 and ends_low)}))

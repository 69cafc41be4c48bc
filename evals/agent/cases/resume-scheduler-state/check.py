"""Resume check: a run preempted after epoch 1 and resumed must follow the same learning-rate
schedule as an uninterrupted run. Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import subprocess
import sys
import tempfile

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
tmp = tempfile.mkdtemp(prefix="resume_check_")


def run(name, *extra):
    args = [sys.executable, "train.py", "--epochs", "4", "--ckpt-dir", os.path.join(tmp, name, "ck"),
            "--out-dir", os.path.join(tmp, name, "out"), *extra]
    subprocess.run(args, cwd=project, check=True, stdout=subprocess.DEVNULL)


run("straight")
run("resumed", "--stop-after-epoch", "1")
run("resumed", "--resume")


def lrs(name):
    with open(os.path.join(tmp, name, "out", "metrics.json")) as f:
        return {r["step"]: r["lr"] for r in json.load(f)["steps"]}


a, b = lrs("straight"), lrs("resumed")
common = sorted(set(a) & set(b))
worst = max(abs(a[s] - b[s]) / a[s] for s in common) if common else float("inf")
ok = len(common) == len(a) and worst < 1e-6
print(json.dumps({"metric": "max_relative_lr_mismatch_after_resume", "value": worst, "pass": ok}))

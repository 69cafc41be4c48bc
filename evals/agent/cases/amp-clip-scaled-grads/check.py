"""AMP check: with train.amp=true the classifier must learn (val acc > 0.6 after 2 short epochs;
fp32 reaches ~0.75). Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import subprocess
import sys
import tempfile

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
out = tempfile.mkdtemp(prefix="amp_check_")
subprocess.run([sys.executable, "train.py", "train.amp=true", "train.epochs=2", "data.n_train=2048",
                f"train.out_dir={out}"], cwd=project, check=True, stdout=subprocess.DEVNULL)
with open(os.path.join(out, "metrics.json")) as f:
    acc = json.load(f)["final"]["val_acc"]
print(json.dumps({"metric": "amp_val_acc_after_2_epochs", "value": acc, "pass": acc > 0.6}))

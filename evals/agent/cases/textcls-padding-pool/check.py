"""Padding-invariance check: a review's score must not depend on the batch it is scored in.

Trains the project briefly, then scores the validation reviews one at a time and in one
padded batch. Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import subprocess
import sys
import tempfile

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
out = tempfile.mkdtemp(prefix="textcls_check_")
subprocess.run([sys.executable, "train.py", "--epochs", "2", "--n-train", "1500", "--out-dir", out],
               cwd=project, check=True, stdout=subprocess.DEVNULL)
sys.path.insert(0, project)
os.chdir(project)

import torch
from textcls.config import Config
from textcls.data import build_datasets, make_eval_loader
from textcls.engine import predict_logits
from textcls.model import build_model

cfg = Config.load(os.path.join(out, "config.json"))
vocab, _, val_ds = build_datasets(cfg)
model = build_model(cfg, vocab)
model.load_state_dict(torch.load(os.path.join(out, "model.pt")))
p1 = predict_logits(model, make_eval_loader(val_ds, vocab, 1)).softmax(-1)
pb = predict_logits(model, make_eval_loader(val_ds, vocab, len(val_ds))).softmax(-1)
diff = (p1 - pb).abs().max().item()
print(json.dumps({"metric": "max_prob_change_single_vs_batched", "value": diff, "pass": diff < 1e-3}))

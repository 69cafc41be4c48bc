"""Causal-leakage check: changing future tokens must not change earlier logits.

Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import sys

import torch

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
sys.path.insert(0, project)
os.chdir(project)

from charlm.config import TrainConfig
from charlm.model import build_model

torch.manual_seed(0)
cfg = TrainConfig()
model = build_model(cfg, vocab_size=30).eval()
x = torch.randint(0, 30, (4, cfg.block_size))
t = cfg.block_size // 2
x2 = x.clone()
x2[:, t + 1 :] = torch.randint(0, 30, x2[:, t + 1 :].shape)
with torch.no_grad():
    a = model(x)[0][:, : t + 1]
    b = model(x2)[0][:, : t + 1]
leak = (a - b).abs().max().item()
print(json.dumps({"metric": "max_logit_change_from_future_tokens", "value": leak, "pass": leak < 1e-5}))

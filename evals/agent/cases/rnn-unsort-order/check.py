"""Batch-consistency check: the logits for an utterance must not depend on which other utterances share its
batch (here: a batch of 24 utterances of mixed lengths in random order vs. each utterance alone).
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import sys

import torch

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
sys.path.insert(0, project)
os.chdir(project)

from intentrnn.config import load_config
from intentrnn.model import build_model

torch.manual_seed(0)
cfg = load_config("configs/default.yaml")
vocab_size, n_classes, pad_id = 60, 5, 0
model = build_model(cfg.model, vocab_size, n_classes, pad_id).eval()
lengths = torch.randint(4, 41, (24,))
tokens = torch.full((24, int(lengths.max())), pad_id, dtype=torch.long)
for i, n in enumerate(lengths.tolist()):
    tokens[i, :n] = torch.randint(2, vocab_size, (n,))
with torch.no_grad():
    batched = model(tokens, lengths)
    alone = torch.cat([model(tokens[i:i + 1, : lengths[i]], lengths[i:i + 1]) for i in range(24)])
diff = (batched - alone).abs().max().item()
print(json.dumps({"metric": "max_logit_change_batched_vs_alone", "value": diff, "pass": diff < 1e-4}))

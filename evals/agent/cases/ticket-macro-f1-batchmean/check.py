"""Macro-F1 check: train the default model briefly through the project's API, then compare the
macro-F1 that the project's evaluate() reports on the validation loader with the macro-F1 of the
same model's predictions on the whole validation set (F1 of each queue from its totals of true
positives, false positives and false negatives, averaged over the six queues). The reported value
must match, and must not depend on the evaluation batch size (64 and 7).
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import sys

import torch

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
sys.path.insert(0, project)
os.chdir(project)

from torch.utils.data import DataLoader  # noqa: E402

from triage.config import load_config  # noqa: E402
from triage.data.datasets import build_data, collate, n_classes  # noqa: E402
from triage.engine import evaluate  # noqa: E402
from triage.models import build_model  # noqa: E402

torch.manual_seed(0)
cfg = load_config("configs/default.yaml")
train_loader, val_loader, vocab = build_data(cfg.data)
k = n_classes()
model = build_model(cfg.model, len(vocab), k)
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
model.train()
for _ in range(2):
    for tokens, offsets, labels in train_loader:
        loss = torch.nn.functional.cross_entropy(model(tokens, offsets), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
model.eval()
preds, targets = [], []
with torch.no_grad():
    for tokens, offsets, labels in val_loader:
        preds.append(model(tokens, offsets).argmax(1))
        targets.append(labels)
pred, target = torch.cat(preds), torch.cat(targets)
f1s = []
for c in range(k):
    tp = int(((pred == c) & (target == c)).sum())
    fp = int(((pred == c) & (target != c)).sum())
    fn = int(((pred != c) & (target == c)).sum())
    f1s.append(2 * tp / (2 * tp + fp + fn) if (2 * tp + fp + fn) else 0.0)
reference = sum(f1s) / k
reported = evaluate(model, val_loader, k)["val_macro_f1"]
small = DataLoader(val_loader.dataset, batch_size=7, shuffle=False, collate_fn=collate)
reported_small = evaluate(model, small, k)["val_macro_f1"]
err = max(abs(reported - reference), abs(reported_small - reference))
print(json.dumps({"metric": "abs_error_reported_vs_dataset_macro_f1", "value": err, "reference": reference,
                  "reported_bs64": reported, "reported_bs7": reported_small, "pass": bool(err < 1e-4)}))

"""Epoch-reshuffle check: build the default config's training loader through the project's own
API and draw the batches of three consecutive epochs the way the trainer does (set_epoch(e) on the
batch sampler when it has one, then iterate). Every epoch must cover each training recording
exactly once, and the batches must change from epoch to epoch: both their order and which
recordings share a batch.
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import sys

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
sys.path.insert(0, project)
os.chdir(project)

from imugest.config import load_config  # noqa: E402
from imugest.data.datasets import build_loaders  # noqa: E402

cfg = load_config("configs/default.yaml")
train_loader, _ = build_loaders(cfg.data)
sampler = train_loader.batch_sampler
n = len(train_loader.dataset)
epochs = []
for epoch in (1, 2, 3):
    if hasattr(sampler, "set_epoch"):
        sampler.set_epoch(epoch)
    epochs.append([tuple(int(i) for i in b) for b in sampler])
covers = all(sorted(i for b in e for i in b) == list(range(n)) for e in epochs)
same_order = sum(epochs[k] == epochs[k + 1] for k in range(2))
same_batches = sum({frozenset(b) for b in epochs[k]} == {frozenset(b) for b in epochs[k + 1]} for k in range(2))
shared = len({frozenset(b) for b in epochs[0]} & {frozenset(b) for b in epochs[1]}) / max(1, len(epochs[0]))
print(json.dumps({"metric": "fraction_of_epoch1_batches_repeated_in_epoch2", "value": shared,
                  "identical_epoch_pairs": same_order, "same_batch_sets": same_batches, "covers_all": covers,
                  "pass": bool(covers and same_order == 0 and same_batches == 0 and shared < 0.5)}))

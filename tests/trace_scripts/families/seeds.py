"""A small classifier on a shuffled DataLoader with dropout, its global seed handled in various ways.

argv: 'reset-each-epoch' (a set_seed(SEED) helper called at the top of every epoch: the shuffle order and the
dropout masks replay each epoch, the bug), 'seed-once' (seeded once before training: correct), 'seed-per-epoch'
(seeded with SEED + epoch: correct), 'private-generator' (a torch.Generator reseeded each epoch for a fixed random
probe batch, the global seed set once: correct), 'new-run-per-fold' (the same seed before each of two folds,
each with its own model and optimizer, 2 epochs a fold: correct).
"""
import random
import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

SEED = 7
mode = sys.argv[1] if len(sys.argv) > 1 else "reset-each-epoch"


def set_seed(seed):
    random.seed(seed)
    torch.manual_seed(seed)


def make_run():
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Dropout(0.2), nn.Linear(16, 2))
    return model, torch.optim.SGD(model.parameters(), lr=0.2)


set_seed(SEED)
x = torch.randn(64, 6)
y = (x[:, 0] > 0).long()
loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True)
folds = 2 if mode == "new-run-per-fold" else 1
for fold in range(folds):
    if mode == "new-run-per-fold":
        set_seed(SEED)
    model, optimizer = make_run()
    for epoch in range(2 if mode == "new-run-per-fold" else 4):
        if mode == "reset-each-epoch":
            set_seed(SEED)
        elif mode == "seed-per-epoch":
            set_seed(SEED + epoch)
        model.train()
        for xb, yb in loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(xb), yb).backward()
            optimizer.step()
        if mode == "private-generator":
            g = torch.Generator().manual_seed(SEED)
            noisy = torch.randn(16, 6, generator=g) * 3.0
            model.eval()
            with torch.no_grad():
                model(noisy)

"""A classifier evaluated on a held-out split, in shapes where the split leaks and where it does not.

argv[1]:
  jitter-before-split   noisy copies of every row made before the random split: the bug
  jitter-after-split    noisy copies made from the training part only: correct
  train-accuracy        evaluated on the training rows themselves (exact copies, a train-accuracy metric): correct
"""
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "jitter-before-split"
torch.manual_seed(0)
x = torch.randn(200, 16)
y = torch.randint(0, 2, (200,))


def jitter(xs, ys, copies=3):
    return torch.cat([xs] + [xs + 0.05 * torch.randn_like(xs) for _ in range(copies)]), ys.repeat(copies + 1)


if mode == "jitter-before-split":
    x, y = jitter(x, y)
perm = torch.randperm(len(x))
cut = int(0.8 * len(x))
x_tr, y_tr, x_te, y_te = x[perm[:cut]], y[perm[:cut]], x[perm[cut:]], y[perm[cut:]]
if mode == "jitter-after-split":
    x_tr, y_tr = jitter(x_tr, y_tr)
if mode == "train-accuracy":
    x_te, y_te = x_tr, y_tr

model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(30):
    idx = torch.randint(0, len(x_tr), (64,))
    loss = nn.functional.cross_entropy(model(x_tr[idx]), y_tr[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0:
        with torch.no_grad():
            acc = (model(x_te).argmax(1) == y_te).float().mean().item()

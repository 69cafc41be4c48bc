"""Copies of one model trained side by side in one process, gradient accumulation over 3 micro-batches. argv[1]:

- 'first' (the bug): the copies' gradients are averaged after the first micro-batch of each window, so each
  copy steps on that average plus its own last two micro-batches;
- 'last': averaged after the last micro-batch (what DistributedDataParallel with no_sync() on the others does);
- 'sweep': a learning-rate sweep: every copy sees the same batches (equal gradients inside the first window)
  with its own learning rate, no averaging;
- 'localsgd': each copy on its own shard, weights (not gradients) averaged every second step;
- 'one-optimizer': as 'first', with one optimizer over every copy's parameters.
"""

import copy
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "first"
accum = 3
torch.manual_seed(0)
base = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
copies = [copy.deepcopy(base) for _ in range(2)]
lrs = [0.05, 0.01] if mode == "sweep" else [0.05, 0.05]
opts = [torch.optim.SGD(m.parameters(), lr=lr, momentum=0.9) for m, lr in zip(copies, lrs)]
if mode == "one-optimizer":
    opts = [torch.optim.SGD([p for m in copies for p in m.parameters()], lr=0.05, momentum=0.9)]
w = torch.randn(8, 1)


def average_grads():
    with torch.no_grad():
        for params in zip(*(m.parameters() for m in copies)):
            mean = torch.stack([p.grad for p in params]).mean(0)
            for p in params:
                p.grad.copy_(mean)


for step in range(300):
    shared = torch.randn(16, 8)
    for model in copies:
        x = shared if mode == "sweep" else torch.randn(16, 8)
        loss = nn.functional.mse_loss(model(x), x @ w) / accum
        loss.backward()
    micro = step % accum
    if (mode in ("first", "one-optimizer") and micro == 0) or (mode == "last" and micro == accum - 1):
        average_grads()
    if micro == accum - 1:
        for opt in opts:
            opt.step()
            opt.zero_grad()
        if mode == "localsgd" and (step // accum) % 2 == 1:
            with torch.no_grad():
                for params in zip(*(m.parameters() for m in copies)):
                    mean = torch.stack([p.data for p in params]).mean(0)
                    for p in params:
                        p.copy_(mean)

"""A small classifier trained with gradient clipping or gradient accumulation, the parts in various orders.

argv: 'clip-after-step' (clip_grad_norm_ after optimizer.step(): it clips nothing the step uses, the bug),
'clip-before-step' (between backward and step: correct), 'accum-exceeds-epoch' (accumulation over 32 micro-batches
with a counter reset every epoch of 16 batches: optimizer.step() never runs, the bug), 'accum-fits' (over 4:
correct), 'accum-final-step' (over 32, but the epoch's last batch also steps: correct).
"""
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "clip-after-step"
torch.manual_seed(0)
x = torch.randn(128, 6)
y = (x[:, 0] > 0).long()
model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
accum = 4 if mode == "accum-fits" else 32

for epoch in range(3):
    for i in range(16):
        xb, yb = x[i * 8:(i + 1) * 8], y[i * 8:(i + 1) * 8]
        if mode.startswith("clip"):
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(xb), yb).backward()
            if mode == "clip-before-step":
                torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            optimizer.step()
            if mode == "clip-after-step":
                torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        else:
            (nn.functional.cross_entropy(model(xb), yb) / accum).backward()
            if (i + 1) % accum == 0 or (mode == "accum-final-step" and i == 15):
                optimizer.step()
                optimizer.zero_grad()

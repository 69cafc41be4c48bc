"""A binary classifier on easily separable data whose confidence grows fast. argv selects the loss:
'log' (hand-written BCE: log of a sigmoid, the bug), 'clamped' (the same, clamped), 'naive-softmax' (exp of
unshifted logits scaled up, the bug) or 'stable-softmax' (max subtracted first)."""
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "log"
torch.manual_seed(0)
x = torch.randn(512, 4) * 6
y = (x[:, 0] > 0).float()
model = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2 if "softmax" in mode else 1))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for step in range(200):
    idx = torch.randint(0, 512, (64,))
    out = model(x[idx])
    if mode in ("log", "clamped"):
        p = torch.sigmoid(out.squeeze(-1))
        if mode == "clamped":
            p = p.clamp(1e-6, 1 - 1e-6)
        loss = -(y[idx] * torch.log(p) + (1 - y[idx]) * torch.log(1 - p)).mean()
    else:
        z = out * 20.0
        if mode == "stable-softmax":
            z = z - z.amax(dim=1, keepdim=True)
        e = torch.exp(z)
        probs = e / e.sum(dim=1, keepdim=True)
        loss = nn.functional.nll_loss(torch.log(probs + 1e-8), y[idx].long())
    opt.zero_grad()
    loss.backward()
    opt.step()

"""Two heads in one optimizer. argv 'staged': head_b is used only from step 60 on (a second stage, after the traced
window), healthy; argv 'cut': head_b runs every step but its output is detached before the loss (the bug)."""
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "staged"
torch.manual_seed(0)


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.head_a = nn.Linear(16, 1)
        self.head_b = nn.Linear(16, 1)

    def forward(self, x, stage):
        h = self.body(x)
        if mode == "cut":
            return self.head_a(h) + self.head_b(h).detach()
        return self.head_a(h) if stage == 1 else self.head_b(h)


model = TwoHeads()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
w = torch.randn(8, 1)
for step in range(80):
    x = torch.randn(32, 8)
    stage = 1 if step < 60 else 2
    loss = nn.functional.mse_loss(model(x, stage), x @ w)
    opt.zero_grad()
    loss.backward()
    opt.step()

"""Mixed-precision style loss scaling: a GradScaler that starts with a huge scale overflows and skips steps.

This is normal behaviour (reported as info), not a NaN bug. Clean twin (--clean): a modest initial scale.
"""
import sys

import torch
from torch import nn


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**16 if "--clean" in sys.argv else 2.0**126)
    g = torch.Generator().manual_seed(8)
    for _ in range(30):
        x, y = torch.randn(16, 4, generator=g), 100.0 * torch.randn(16, 1, generator=g)
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()


if __name__ == "__main__":
    main()

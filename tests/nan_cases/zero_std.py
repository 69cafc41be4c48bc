"""Per-sample standardisation divides by a zero standard deviation (a constant row at step 6).

Clean twin (--clean): the standard deviation is clamped away from zero.
Also usable as FILE:FUNCTION (``zero_std.py:setup``).
"""
import sys

import torch
from torch import nn

CLEAN = "--clean" in sys.argv


class Standardize(nn.Module):
    def __init__(self, clean=False):
        super().__init__()
        self.clean = clean

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        std = x.std(dim=-1, keepdim=True)
        if self.clean:
            std = std.clamp_min(1e-5)
        return (x - mean) / std


def make_model(clean):
    return nn.Sequential(Standardize(clean), nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 1))


def make_batches(n=10):
    g = torch.Generator().manual_seed(2)
    out = []
    for step in range(n):
        x = torch.randn(8, 6, generator=g)
        if step == 6:
            x[5] = 3.0  # a sensor stuck at one value: every feature equal
        out.append((x, torch.randn(8, 1, generator=g)))
    return out


def setup():
    torch.manual_seed(0)
    return {"model": make_model(CLEAN), "loader": make_batches(), "loss_fn": nn.functional.mse_loss,
            "optimizer": lambda ps: torch.optim.SGD(ps, lr=0.01)}


def main():
    torch.manual_seed(0)
    model = make_model(CLEAN)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for x, y in make_batches():
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()

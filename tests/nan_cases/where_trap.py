"""The torch.where gradient trap: log() of the masked-out entries is -inf/NaN, and at 0 its gradient 0/0 is NaN.

Clean twin (--clean): the double-where pattern, which keeps log() away from zero.
"""
import sys

import torch
from torch import nn

CLEAN = "--clean" in sys.argv


class SafeLogFeature(nn.Module):
    def forward(self, h):
        if CLEAN:
            return torch.where(h > 0, torch.log(torch.where(h > 0, h, torch.ones_like(h))), torch.zeros_like(h))
        return torch.where(h > 0, torch.log(h), torch.zeros_like(h))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 6, bias=False)
        self.logfeat = SafeLogFeature()
        self.out = nn.Linear(6, 1)

    def forward(self, x):
        return self.out(self.logfeat(self.lin(x)))


def main():
    torch.manual_seed(0)
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    g = torch.Generator().manual_seed(6)
    for _ in range(6):
        x = torch.randn(8, 4, generator=g)
        x[3] = 0.0  # an empty (padding) sample: its features are exactly zero
        loss = nn.functional.mse_loss(model(x), torch.randn(8, 1, generator=g))
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()

"""Linear regression with a learning rate far above 2/L: the weights grow geometrically until they overflow.

Clean twin (--clean): a learning rate inside the stable range.
"""
import sys

import torch
from torch import nn

CLEAN = "--clean" in sys.argv


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 16), nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=1e-3 if CLEAN else 0.3)
    g = torch.Generator().manual_seed(4)
    x = torch.randn(32, 16, generator=g) * 3.0
    y = torch.randn(32, 1, generator=g)
    for _ in range(60):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()

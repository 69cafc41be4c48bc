"""An L2 norm written as sqrt(sum(h**2)): finite forward, NaN gradient where h is all zero (step 0).

Clean twin (--clean): torch.linalg.vector_norm, whose gradient at zero is defined as zero.
"""
import sys

import torch
from torch import nn

CLEAN = "--clean" in sys.argv


class RowNorm(nn.Module):
    def forward(self, h):
        if CLEAN:
            return torch.linalg.vector_norm(h, dim=-1)
        return torch.sqrt((h * h).sum(dim=-1))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 8, bias=False)
        self.norm = RowNorm()

    def forward(self, x):
        return self.norm(self.proj(x))


def main():
    torch.manual_seed(0)
    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    g = torch.Generator().manual_seed(3)
    for _ in range(8):
        x = torch.randn(6, 4, generator=g)
        x[2] = 0.0  # padding row: all zeros
        target = torch.ones(6)
        loss = ((model(x) - target) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()

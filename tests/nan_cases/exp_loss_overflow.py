"""A margin loss written by hand as log(1 + exp(-margin)): exp overflows once a margin falls below about -89.

A batch that skipped its normalisation arrives at step 4 and drives some margins far below zero.
Clean twin (--clean): the same loss in log space, F.softplus(-margin).
"""
import sys

import torch
from torch import nn

CLEAN = "--clean" in sys.argv


def main():
    torch.manual_seed(0)
    scorer = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1))
    opt = torch.optim.SGD(scorer.parameters(), lr=0.05)
    g = torch.Generator().manual_seed(3)
    for step in range(10):
        x = torch.randn(12, 5, generator=g)
        if step == 4:
            x = x * 1000.0  # raw, unnormalised features
        y = torch.randint(0, 2, (12,), generator=g).float() * 2 - 1  # labels in {-1, +1}
        margin = y * scorer(x).squeeze(-1)
        if CLEAN:
            loss = nn.functional.softplus(-margin).mean()
        else:
            loss = torch.log(1 + torch.exp(-margin)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()

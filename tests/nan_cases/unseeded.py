"""No seed anywhere: the batches come from Python's `random`, seeded from the OS at start-up.

A constant sample (zero standard deviation) shows up at a different step in every run, so a replay
cannot repeat the first run. Twin (--clean): the same script seeded with `random.seed(0)`: it
still fails, but deterministically, so the replay reproduces it and names the operation.
"""
import random
import sys

import torch
from torch import nn

if "--clean" in sys.argv:
    random.seed(0)


def standardize(x):
    return (x - x.mean(dim=-1, keepdim=True)) / x.std(dim=-1, keepdim=True)


def main():
    torch.manual_seed(0)
    model = nn.Linear(6, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(40):
        rows = [[random.gauss(0.0, 1.0) for _ in range(6)] for _ in range(8)]
        if random.random() < 0.15:
            rows[0] = [1.0] * 6  # a constant sample
        x = torch.tensor(rows)
        loss = model(standardize(x)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()

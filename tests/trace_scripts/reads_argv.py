"""Needs its own argument and a file next to it, reached through sys.path[0]."""
import sys

import helper_module  # lives next to this script
import torch

assert __name__ == "__main__"
assert sys.argv[1] == "--lr" and len(sys.argv) == 3, sys.argv
model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=float(sys.argv[2]))
for _ in range(3):
    opt.zero_grad()
    model(torch.randn(8, 4)).pow(2).mean().backward()
    opt.step()
helper_module.done()

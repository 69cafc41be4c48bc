"""Modules whose train-time output is all exact zeros, in several shapes (argv[1]); buggy and clean variants.

Buggy: 'keep-prob' (a keep probability of 1 passed to nn.Dropout as its drop rate), 'int-scale' (a branch scale
computed by integer division, so 0), 'mask' (a feature mask built from an inverted comparison, all zero), 'frozen'
(a zero-initialised projection whose weights are frozen).
Clean: 'dropout' (a drop rate of 0.2), 'zero-init' (a zero-initialised last layer of a residual branch, which moves at
the first update), 'pad-mask' (an additive attention mask that is all zero because nothing is padded).
'keep-prob-pg': 'keep-prob' inside a one-process gloo process group, as under torchrun (the probes that intercept
torch calls stand down there; this one must not).
"""
import sys

import torch
from torch import nn

variant = sys.argv[1] if len(sys.argv) > 1 else "keep-prob"
torch.manual_seed(0)
if variant.endswith("-pg"):
    import os
    import tempfile

    import torch.distributed as dist

    store = os.path.join(tempfile.mkdtemp(), "store")
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=0, world_size=1)
    variant = variant[:-3]


class Scaled(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.scale = width // (2 * width) if variant == "int-scale" else 0.5

    def forward(self, x):
        return self.fc(x) * self.scale


class Masked(nn.Module):
    def forward(self, x):
        keep = (x.abs() < 0) if variant == "mask" else (x.abs() < 1e9)
        return x * keep.float()


class PadMask(nn.Module):
    def forward(self, ids):
        return (ids == 0).float() * -1e4


class Branch(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.inner = nn.Linear(width, width)
        self.last = nn.Linear(width, width)
        if variant in ("zero-init", "frozen"):
            nn.init.zeros_(self.last.weight)
            nn.init.zeros_(self.last.bias)
        if variant == "frozen":
            self.last.requires_grad_(False)

    def forward(self, x):
        return x + self.last(torch.tanh(self.inner(x)))


class Net(nn.Module):
    def __init__(self, width=16, keep_prob=1.0):
        super().__init__()
        self.emb = nn.Embedding(20, width)
        self.pad = PadMask()
        self.branch = Branch(width)
        self.scaled = Scaled(width)
        self.mask = Masked()
        self.drop = nn.Dropout(keep_prob if variant == "keep-prob" else 0.2)
        self.head = nn.Linear(width, 3)

    def forward(self, ids):
        h = self.emb(ids).mean(1)
        h = h + self.pad(ids).mean(1, keepdim=True)
        h = self.branch(h)
        h = self.mask(h)
        h = h + self.scaled(h)
        return self.head(self.drop(h))


model = Net()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for _ in range(30):
    ids = torch.randint(1, 20, (32, 5))
    y = ids[:, 0] % 3
    loss = nn.functional.cross_entropy(model(ids), y)
    opt.zero_grad()
    loss.backward()
    opt.step()

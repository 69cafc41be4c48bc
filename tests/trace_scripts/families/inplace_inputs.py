"""Modules that overwrite a tensor they were given, in several shapes (argv[1]); buggy and clean variants.

Buggy: 'skip' (a residual block whose body starts with ReLU(inplace=True), then out + x), 'scale' (a helper that
scales its input in place and returns a projection; the caller adds the input back), 'target' (a normaliser inside
the autoencoder that standardises the batch in place; the loop then scores the reconstruction against it).
Clean: 'skip-fixed' (ReLU not in place), 'post-act' (in-place ReLU on fresh intermediates, as torchvision's ResNet),
'alias' (the helper overwrites its input and returns that same tensor), 'target-fixed' (the normaliser returns a
new tensor).
"""
import sys

import torch
from torch import nn

variant = sys.argv[1] if len(sys.argv) > 1 else "skip"


class SkipBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.body = nn.Sequential(nn.ReLU(inplace=variant == "skip"), nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width))

    def forward(self, x):
        out = self.body(x)
        out += x
        return out


class PostActBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(width, width), nn.Linear(width, width)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        identity = x
        out = self.relu(self.fc1(x))
        out = self.fc2(out)
        out += identity
        return self.relu(out)


class Rescale(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.gain = nn.Parameter(torch.ones(width))
        self.proj = nn.Linear(width, width)

    def forward(self, x):
        x.mul_(2.0)
        if variant == "alias":
            return x
        return self.proj(x * self.gain)


class ScaleBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.pre = nn.Linear(width, width)
        self.rescale = Rescale(width)

    def forward(self, x):
        h = self.pre(x)
        return self.rescale(h) + h


class Standardize(nn.Module):
    def forward(self, x):
        if variant == "target":
            x.sub_(x.mean(1, keepdim=True))
            return x.div(x.std(1, keepdim=True) + 1e-5)
        return (x - x.mean(1, keepdim=True)) / (x.std(1, keepdim=True) + 1e-5)


class Net(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.norm = Standardize()
        self.inp = nn.Linear(8, width)
        block = {"skip": SkipBlock, "skip-fixed": SkipBlock, "post-act": PostActBlock, "scale": ScaleBlock,
                 "alias": ScaleBlock}.get(variant, PostActBlock)
        self.blocks = nn.Sequential(block(width), block(width))
        self.out = nn.Linear(width, 8)

    def forward(self, x):
        return self.out(self.blocks(self.inp(self.norm(x))))


torch.manual_seed(0)
model = Net()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for _ in range(30):
    x = torch.randn(32, 8) * 3 + 1
    recon = model(x)
    loss = nn.functional.mse_loss(recon, x)
    opt.zero_grad()
    loss.backward()
    opt.step()

"""Activations that may compute the identity, in several shapes (argv[1]); buggy and clean variants.

Buggy: 'leaky-true' (nn.LeakyReLU(True) in a conv block: the nn.ReLU(True) idiom, but True is the negative slope),
'functional-true' (F.leaky_relu(h, True) in a forward), 'prelu-stuck' (a PReLU started at 1 whose weight no optimizer
holds), 'rrelu-one' (nn.RReLU(1.0, 1.0)).
Clean: 'leaky-inplace' (nn.LeakyReLU(0.2, True)), 'relu-inplace' (nn.ReLU(True)), 'leaky-default'
(nn.LeakyReLU(inplace=True) and F.leaky_relu(h, 0.01)), 'prelu-learns' (a PReLU started at 1 that trains),
'positive-inputs' (nn.LeakyReLU(True) after a sigmoid: every input positive, so the slope never acts),
'identity-module' (nn.Identity() where a config asks for no activation).
"""
import sys

import torch
import torch.nn.functional as F
from torch import nn

variant = sys.argv[1] if len(sys.argv) > 1 else "leaky-true"
torch.manual_seed(0)


def act():
    return {"leaky-true": lambda: nn.LeakyReLU(True), "leaky-inplace": lambda: nn.LeakyReLU(0.2, True),
            "relu-inplace": lambda: nn.ReLU(True), "leaky-default": lambda: nn.LeakyReLU(inplace=True),
            "prelu-stuck": lambda: nn.PReLU(init=1.0), "prelu-learns": lambda: nn.PReLU(init=1.0),
            "rrelu-one": lambda: nn.RReLU(1.0, 1.0), "identity-module": nn.Identity}.get(variant, nn.ReLU)()


class Block(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv1d(cin, cout, 3, padding=1)
        self.norm = nn.BatchNorm1d(cout)
        self.act = act()

    def forward(self, x):
        return self.act(self.norm(self.conv(x)))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(Block(4, 16), Block(16, 16))
        self.fc1 = nn.Linear(16, 16)
        self.head = nn.Linear(16, 2)

    def forward(self, x):
        h = self.blocks(x).mean(-1)
        if variant == "positive-inputs":
            h = nn.LeakyReLU(True)(torch.sigmoid(self.fc1(h)))
        elif variant == "functional-true":
            h = F.leaky_relu(self.fc1(h), True)
        elif variant == "leaky-default":
            h = F.leaky_relu(self.fc1(h), 0.01)
        else:
            h = self.fc1(h)
        return self.head(h)


model = Net()
params = [p for n, p in model.named_parameters() if not (variant == "prelu-stuck" and n.endswith("act.weight"))]
optimizer = torch.optim.Adam(params, lr=1e-2)
x = torch.randn(256, 4, 12)
y = (x[:, 0].mean(-1) > 0).long()
for step in range(30):
    rows = slice((step * 32) % 256, (step * 32) % 256 + 32)
    optimizer.zero_grad()
    F.cross_entropy(model(x[rows]), y[rows]).backward()
    optimizer.step()

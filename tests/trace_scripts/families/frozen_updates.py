"""A two-stage fine-tune: a trunk and head trained for 6 steps, then the trunk frozen while a second head trains.

argv: 'momentum-keeps-moving' (the trunk frozen with requires_grad=False but left in the momentum SGD optimizer,
its gradients zeroed with set_to_none=False: momentum and weight decay keep moving it, the bug), 'set-to-none'
(the same optimizer, gradients set to None at each zero_grad and the trunk's momentum cleared: it stays put,
correct), 'rebuilt' (a new optimizer over the trainable parameters only: correct), 'frozen-from-start' (the trunk
frozen before the optimizer is built from the trainable parameters: correct).
"""
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "momentum-keeps-moving"
torch.manual_seed(0)
x = torch.randn(256, 8)
y_a = (x[:, 0] > 0).long()
y_b = (x[:, 1] > 0).long()
trunk = nn.Sequential(nn.Linear(8, 32), nn.ReLU())
head_a, head_b = nn.Linear(32, 2), nn.Linear(32, 2)
model = nn.ModuleDict({"trunk": trunk, "head_a": head_a, "head_b": head_b})


def sgd(params):
    return torch.optim.SGD(params, lr=0.02, momentum=0.9, weight_decay=1e-3)


if mode == "frozen-from-start":
    trunk.requires_grad_(False)
    optimizer = sgd([p for p in model.parameters() if p.requires_grad])
else:
    optimizer = sgd(model.parameters())
for step in range(40):
    if step == 6 and mode != "frozen-from-start":
        trunk.requires_grad_(False)
        if mode == "rebuilt":
            optimizer = sgd([p for p in model.parameters() if p.requires_grad])
        elif mode == "set-to-none":
            for p in trunk.parameters():
                optimizer.state.pop(p, None)
    rows = slice((step * 16) % 256, (step * 16) % 256 + 16)
    head, labels = (head_a, y_a) if step < 6 else (head_b, y_b)
    optimizer.zero_grad(set_to_none=mode != "momentum-keeps-moving")
    nn.functional.cross_entropy(head(trunk(x[rows])), labels[rows]).backward()
    optimizer.step()

"""Tiny projects for the triage tests: a softmax fed to CrossEntropyLoss, its fixed twin, and no entry point."""

from __future__ import annotations

from pathlib import Path

SOFTMAX_TRAIN = '''\
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4), nn.Softmax(dim=1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.CrossEntropyLoss()

for step in range(50):
    x = torch.randn(32, 8)
    y = x[:, :4].argmax(1)
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
'''

CLEAN_TRAIN = SOFTMAX_TRAIN.replace(", nn.Softmax(dim=1))", ")")

LIBRARY_ONLY = '''\
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(x)
'''


def make(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root

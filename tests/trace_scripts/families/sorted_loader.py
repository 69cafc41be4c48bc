"""A classification set stored class by class; the training loader shuffles it (argv 'shuffled') or not ('sorted', the bug)."""
import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

order = sys.argv[1] if len(sys.argv) > 1 else "sorted"
torch.manual_seed(0)
centers = torch.randn(3, 6) * 2
labels = torch.arange(3).repeat_interleave(200)  # stored class by class
inputs = centers[labels] + torch.randn(600, 6)
loader = DataLoader(TensorDataset(inputs, labels), batch_size=20, shuffle=(order == "shuffled"))
model = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for epoch in range(3):
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()

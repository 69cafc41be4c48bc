"""A healthy classifier whose one-cycle schedule starts at a tiny learning rate: the loss sits at ln(3) for the
first steps and only then falls. Not a data bug; trace must not call it one."""
import torch
from torch import nn

torch.manual_seed(0)
centers = torch.randn(3, 16) * 0.5
labels = torch.randint(0, 3, (3000,))
inputs = centers[labels] + torch.randn(3000, 16)
model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=600, pct_start=0.3, div_factor=1e4)
for epoch in range(6):
    perm = torch.randperm(len(inputs))
    for i in range(0, len(inputs), 32):
        idx = perm[i:i + 32]
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(inputs[idx]), labels[idx])
        loss.backward()
        opt.step()
        sched.step()

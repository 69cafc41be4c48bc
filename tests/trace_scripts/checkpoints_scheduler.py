"""Saves optimizer and scheduler state every few steps (torch.save must keep working under trace)."""
import os
import tempfile

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=1000)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=100)
teacher = torch.randn(8, 4)
folder = tempfile.mkdtemp()
for step in range(100):
    x = torch.randn(64, 8)
    loss = nn.functional.cross_entropy(model(x), (x @ teacher).argmax(1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    plateau.step(loss.item())
    if step % 5 == 0:
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                    "plateau": plateau.state_dict()}, os.path.join(folder, "ckpt.pt"))

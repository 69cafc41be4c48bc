"""Bug: gradient accumulation with accelerate, but the loop calls loss.backward() instead of
accelerator.backward(loss): the loss is never divided by gradient_accumulation_steps, so the
four micro-batch gradients are summed and every update is 4x too large."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
X = torch.randn(512, 16)
y = (X @ torch.randn(16, 4)).argmax(1)
loader = DataLoader(TensorDataset(X, y), batch_size=16, shuffle=True)

accelerator = Accelerator(cpu=True, gradient_accumulation_steps=4)
model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
model, optimizer, loader = accelerator.prepare(model, optimizer, loader)

for epoch in range(4):
    for xb, yb in loader:
        with accelerator.accumulate(model):
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()

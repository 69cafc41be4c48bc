"""Bug: the optimizer is left out of accelerator.prepare. accelerator.backward still divides each
micro-batch loss by gradient_accumulation_steps, but the raw optimizer steps (and clears) after every
micro-batch: nothing accumulates and every update is 4x smaller than intended."""
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
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
model, loader = accelerator.prepare(model, loader)

for epoch in range(4):
    for xb, yb in loader:
        with accelerator.accumulate(model):
            loss = F.cross_entropy(model(xb), yb)
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()

"""Bug: the script divides the loss by the accumulation steps, as in a hand-written accumulation
loop, and accelerator.backward divides it again: every update is 4x smaller than intended.
Modelled on huggingface/accelerate issues 3533 and 1773 (a loss divided before accelerator.backward)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

ACCUM = 4
torch.manual_seed(0)
X = torch.randn(512, 16)
y = (X @ torch.randn(16, 4)).argmax(1)
loader = DataLoader(TensorDataset(X, y), batch_size=16, shuffle=True)

accelerator = Accelerator(cpu=True, gradient_accumulation_steps=ACCUM)
model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
model, optimizer, loader = accelerator.prepare(model, optimizer, loader)

for epoch in range(4):
    for xb, yb in loader:
        with accelerator.accumulate(model):
            loss = F.cross_entropy(model(xb), yb) / ACCUM
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()

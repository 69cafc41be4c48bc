"""The accelerate recipe: prepare everything, accumulate with accelerator.accumulate, backward through the
accelerator, clip through the accelerator, evaluate in eval mode."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
X = torch.randn(512, 16)
y = (X @ torch.randn(16, 4)).argmax(1)
train = DataLoader(TensorDataset(X[:448], y[:448]), batch_size=16, shuffle=True)
val = DataLoader(TensorDataset(X[448:], y[448:]), batch_size=64)

accelerator = Accelerator(cpu=True, gradient_accumulation_steps=2, mixed_precision="bf16")
model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 4))
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
model, optimizer, train, val = accelerator.prepare(model, optimizer, train, val)

for epoch in range(3):
    model.train()
    for xb, yb in train:
        with accelerator.accumulate(model):
            loss = F.cross_entropy(model(xb), yb)
            accelerator.backward(loss)
            if accelerator.sync_gradients:
                accelerator.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()
    model.eval()
    correct = 0
    with torch.no_grad():
        for xb, yb in val:
            correct += (model(xb).argmax(1) == yb).sum().item()
    accelerator.print(f"epoch {epoch} loss {loss.item():.3f} val acc {correct / 64:.3f}")

"""A small classifier trained through torch.compile, validated with model.eval() every few steps.

Regression script: `mlsleuth trace` used to crash here before step 0, because dynamo traced mlsleuth's global
forward hook (see pytorch/pytorch#149502 on global hooks and OptimizedModule)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.randn(512, 16)
y = (X @ torch.randn(16, 4)).argmax(1)
X_val, y_val = X[448:], y[448:]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 4))

    def forward(self, x):
        return self.body(x)


model = torch.compile(Net())
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
step = 0
for epoch in range(3):
    perm = torch.randperm(448)
    for i in range(0, 448, 32):
        idx = perm[i:i + 32]
        model.train()
        opt.zero_grad()
        loss = F.cross_entropy(model(X[idx]), y[idx])
        loss.backward()
        opt.step()
        step += 1
        if step % 5 == 0:
            model.eval()
            with torch.no_grad():
                acc = (model(X_val).argmax(1) == y_val).float().mean()
            print(f"step {step} loss {loss.item():.3f} val acc {acc:.3f}")

"""Bug: the loop never clears gradients, so every step applies the sum of all past gradients."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.randn(512, 16)
y = (X @ torch.randn(16, 4)).argmax(1)

model = torch.compile(nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4)))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(3):
    perm = torch.randperm(512)
    for i in range(0, 512, 32):
        idx = perm[i:i + 32]
        loss = F.cross_entropy(model(X[idx]), y[idx])
        loss.backward()
        opt.step()

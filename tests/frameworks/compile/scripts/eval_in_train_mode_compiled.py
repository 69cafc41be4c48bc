"""Bug: validation of a compiled model under torch.no_grad() without model.eval():
dropout stays on and batch norm keeps updating its running statistics from validation data."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.randn(512, 16)
y = (X @ torch.randn(16, 4)).argmax(1)
X_val, y_val = X[448:], y[448:]

net = nn.Sequential(nn.Linear(16, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.3), nn.Linear(64, 4))
model = torch.compile(net)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


def evaluate():
    with torch.no_grad():
        return (model(X_val).argmax(1) == y_val).float().mean().item()


step = 0
for epoch in range(3):
    model.train()
    perm = torch.randperm(448)
    for i in range(0, 448, 32):
        idx = perm[i:i + 32]
        opt.zero_grad()
        F.cross_entropy(model(X[idx]), y[idx]).backward()
        opt.step()
        step += 1
        if step % 4 == 0:
            print("val acc", evaluate())

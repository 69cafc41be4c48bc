"""Bug: the compiled model ends in a Softmax layer and its output goes to CrossEntropyLoss,
which applies log-softmax again (gradients shrink, training stalls)."""
import torch
import torch.nn as nn

torch.manual_seed(0)
X = torch.randn(512, 16)
y = (X @ torch.randn(16, 4)).argmax(1)

model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4), nn.Softmax(dim=1))
model = torch.compile(model)
criterion = nn.CrossEntropyLoss()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(3):
    perm = torch.randperm(512)
    for i in range(0, 512, 32):
        idx = perm[i:i + 32]
        opt.zero_grad()
        loss = criterion(model(X[idx]), y[idx])
        loss.backward()
        opt.step()

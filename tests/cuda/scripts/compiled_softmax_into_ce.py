"""A compiled GPU classifier whose forward ends in softmax, fed to cross_entropy (which applies its own)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

dev = "cuda"
torch.manual_seed(0)
X = torch.randn(1024, 32, device=dev)
y = (X @ torch.randn(32, 5, device=dev)).argmax(1)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 5))

    def forward(self, x):
        return F.softmax(self.body(x), dim=-1)


model = torch.compile(Net().to(dev))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(3):
    perm = torch.randperm(1024, device=dev)
    for i in range(0, 1024, 64):
        idx = perm[i:i + 64]
        opt.zero_grad()
        loss = F.cross_entropy(model(X[idx]), y[idx])
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.3f}")

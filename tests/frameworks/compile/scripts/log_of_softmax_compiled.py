"""Bug: a hand-written cross-entropy, log(softmax(logits / T)) with a small temperature, through a compiled
model: once a wrong class's probability underflows to exactly 0, log gives -inf and the loss turns to inf/NaN."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.randn(512, 16)
y = torch.randint(0, 4, (512,))  # noisy labels: confident mistakes happen early

model = torch.compile(nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4)))
opt = torch.optim.SGD(model.parameters(), lr=0.5)
TEMPERATURE = 0.01
for epoch in range(5):
    perm = torch.randperm(512)
    for i in range(0, 512, 32):
        idx = perm[i:i + 32]
        probs = F.softmax(model(X[idx]) / TEMPERATURE, dim=1)
        loss = -torch.log(probs.gather(1, y[idx, None])).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()

"""Bug: the loss is scaled for backward but the optimizer is stepped directly (opt.step(), not
scaler.step(opt)), so the update uses gradients 65,536x too large. Seen when a loop is
half-converted to AMP: the backward line changed, the step line did not."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.randn(512, 16)
y = (X @ torch.randn(16, 4)).argmax(1)

model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4))
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cpu")
for epoch in range(3):
    perm = torch.randperm(512)
    for i in range(0, 512, 32):
        idx = perm[i:i + 32]
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16):
            loss = F.cross_entropy(model(X[idx]), y[idx])
        scaler.scale(loss).backward()
        opt.step()  # should be scaler.step(opt); scaler.update()

"""Bug: gradients are clipped while still multiplied by the GradScaler's scale (no scaler.unscale_(opt)
first), so the clip threshold applies to gradients ~65,536x too large: every step is clipped to a tiny
update and training crawls: the ordering the PyTorch AMP examples warn about (unscale_ before
clipping)"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.randn(512, 16)
y = (X @ torch.randn(16, 4)).argmax(1)

model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scaler = torch.amp.GradScaler("cpu")
for epoch in range(3):
    perm = torch.randperm(512)
    for i in range(0, 512, 32):
        idx = perm[i:i + 32]
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.float16):
            loss = F.cross_entropy(model(X[idx]), y[idx])
        scaler.scale(loss).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        scaler.step(opt)
        scaler.update()

"""The recommended float16 recipe: autocast + GradScaler, gradients unscaled before clipping."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.randn(512, 16)
y = (X @ torch.randn(16, 4)).argmax(1)

model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4))
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
scaler = torch.amp.GradScaler("cpu")
for epoch in range(3):
    perm = torch.randperm(512)
    for i in range(0, 512, 32):
        idx = perm[i:i + 32]
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.float16):
            loss = F.cross_entropy(model(X[idx]), y[idx])
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
    print(f"epoch {epoch} loss {loss.item():.3f}")

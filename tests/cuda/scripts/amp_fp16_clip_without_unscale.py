"""float16 on a GPU with GradScaler, but the gradients are clipped while still multiplied by the scale
(no scaler.unscale_ before clip_grad_norm_), so the clip shrinks every step to almost nothing."""
import torch
import torch.nn as nn
import torch.nn.functional as F

dev = "cuda"
torch.manual_seed(0)
X = torch.randn(1024, 32, device=dev)
y = (X @ torch.randn(32, 5, device=dev)).argmax(1)

model = nn.Sequential(nn.Linear(32, 128), nn.GELU(), nn.Linear(128, 128), nn.GELU(), nn.Linear(128, 5)).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
scaler = torch.amp.GradScaler("cuda")
for epoch in range(3):
    perm = torch.randperm(1024, device=dev)
    for i in range(0, 1024, 64):
        idx = perm[i:i + 64]
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.cross_entropy(model(X[idx]), y[idx])
        scaler.scale(loss).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
    print(f"epoch {epoch} loss {loss.item():.3f}")

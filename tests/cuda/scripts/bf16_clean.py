"""bfloat16 autocast on a GPU (no scaler needed), with a validation pass in eval mode."""
import torch
import torch.nn as nn
import torch.nn.functional as F

dev = "cuda"
torch.manual_seed(0)
X = torch.randn(1024, 32, device=dev)
y = (X @ torch.randn(32, 5, device=dev)).argmax(1)
Xv, yv = X[896:], y[896:]

model = nn.Sequential(nn.Linear(32, 128), nn.LayerNorm(128), nn.ReLU(), nn.Dropout(0.1), nn.Linear(128, 5)).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
for epoch in range(3):
    model.train()
    perm = torch.randperm(896, device=dev)
    for i in range(0, 896, 64):
        idx = perm[i:i + 64]
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(X[idx]), y[idx])
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
        acc = (model(Xv).argmax(1) == yv).float().mean().item()
    print(f"epoch {epoch} loss {loss.item():.3f} val acc {acc:.3f}")

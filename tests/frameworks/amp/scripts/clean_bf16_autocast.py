"""A small classifier trained with bf16 autocast on CPU (no GradScaler needed for bf16), clipped, validated."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.randn(512, 16)
y = (X @ torch.randn(16, 4)).argmax(1)
X_val, y_val = X[448:], y[448:]

model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4))
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
step = 0
for epoch in range(3):
    model.train()
    perm = torch.randperm(448)
    for i in range(0, 448, 32):
        idx = perm[i:i + 32]
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(X[idx])
            loss = F.cross_entropy(logits, y[idx])
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
    model.eval()
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        acc = (model(X_val).argmax(1) == y_val).float().mean()
    print(f"epoch {epoch} loss {loss.item():.3f} val acc {acc:.3f}")

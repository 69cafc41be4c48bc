"""Bug: an embedding-distance loss takes sqrt of squared distances that include exact zeros
(each sample against itself); the gradient of sqrt at 0 is inf, the GradScaler sees inf gradients
and skips optimizer.step() on every iteration while the loss prints as a finite number.
Nothing trains and nothing fails. Modelled on reports of a loss scale that halves until it reaches
zero (lucidrains/stylegan2-pytorch#100, Junjue-Wang/FactSeg#6, lpiccinelli-eth/UniK3D#16)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
X = torch.randn(512, 16)
y = torch.randint(0, 4, (512,))

encoder = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 8))
opt = torch.optim.Adam(encoder.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cpu")


def contrastive_loss(emb, labels, margin=1.0):
    diff = emb[:, None, :] - emb[None, :, :]
    dist = diff.pow(2).sum(-1).sqrt()  # zero on the diagonal: d sqrt / dx is inf there
    same = (labels[:, None] == labels[None, :]).float()
    return (same * dist.pow(2) + (1 - same) * F.relu(margin - dist).pow(2)).mean()


for epoch in range(5):
    perm = torch.randperm(512)
    for i in range(0, 512, 32):
        idx = perm[i:i + 32]
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16):
            emb = encoder(X[idx])
        loss = contrastive_loss(emb.float(), y[idx])
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
    print("epoch", epoch, "loss", loss.item(), "scale", scaler.get_scale())

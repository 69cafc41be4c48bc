import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

from optim import build_optim

CFG = {"base_lr": 0.5, "epochs": 12, "batch_size": 64}


def make_data(seed=0):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(24, 6, generator=g)
    x = torch.randn(1536, 24, generator=g)
    y = (x @ w + 0.5 * torch.randn(1536, 6, generator=g)).argmax(1)
    return x[:1280], y[:1280], x[1280:], y[1280:]


def build_model():
    return nn.Sequential(nn.Linear(24, 64), nn.ReLU(), nn.Linear(64, 6))


def run(ckpt_path, start_epoch, stop_epoch, data):
    x, y, xv, yv = data
    model = build_model()
    state = None
    if start_epoch > 0:
        state = torch.load(ckpt_path)
        model.load_state_dict(state["model"])
    optimizer, scheduler = build_optim(model, CFG, resume_state=state)
    g = torch.Generator().manual_seed(100 + start_epoch)
    for epoch in range(start_epoch, stop_epoch):
        lr = optimizer.param_groups[0]["lr"]
        perm = torch.randperm(len(x), generator=g)
        for i in range(0, len(x), CFG["batch_size"]):
            idx = perm[i:i + CFG["batch_size"]]
            loss = F.cross_entropy(model(x[idx]), y[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
        with torch.no_grad():
            val = F.cross_entropy(model(xv), yv).item()
        print(f"epoch {epoch:2d} lr {lr:.4f} train {loss.item():.4f} val {val:.4f}")
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict()}, ckpt_path)


if __name__ == "__main__":
    torch.manual_seed(0)
    data = make_data()
    with tempfile.TemporaryDirectory() as d:
        ckpt = os.path.join(d, "last.pt")
        run(ckpt, 0, 8, data)
        print("-- resumed from checkpoint")
        run(ckpt, 8, CFG["epochs"], data)

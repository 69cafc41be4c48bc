import math

import torch


def lr_at(step, base_lr, warmup, total):
    if step < warmup:
        return base_lr * (step + 1) / warmup
    return 0.5 * base_lr * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))


def train(model, loader, ckpt_path, base_lr=1e-4, warmup=2000, total=90000, resume=False):
    opt = torch.optim.AdamW(model.parameters(), lr=base_lr)
    step = 0
    if resume:
        ckpt = torch.load(ckpt_path, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["optimizer"])
        step = ckpt["step"]
    while step < total:
        for batch in loader:
            for g in opt.param_groups:
                g["lr"] = lr_at(step, base_lr, warmup, total)
            loss = model(batch)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 1000 == 0:
                torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "step": step}, ckpt_path)
            if step >= total:
                break

from __future__ import annotations

import torch
import torch.nn.functional as F


def autocast_context(device: str, enabled: bool):
    dtype = torch.float16 if device == "cuda" else torch.bfloat16
    return torch.autocast(device_type=device, dtype=dtype, enabled=enabled)


def train_one_epoch(model, loader, optimizer, scaler, cfg, device: str, epoch: int, log) -> float:
    model.train()
    total, n = 0.0, 0
    for i, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)
        with autocast_context(device, cfg.train.amp):
            logits = model(x)
            loss = F.cross_entropy(logits, y)
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        if cfg.optim.grad_clip > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.optim.grad_clip)
        scaler.step(optimizer)
        scaler.update()
        total += loss.item() * len(y)
        n += len(y)
        if i % cfg.train.log_every == 0:
            log(f"epoch {epoch} it {i:4d} loss {loss.item():.4f} scale {scaler.get_scale():.0f}")
    return total / n


@torch.no_grad()
def evaluate(model, loader, device: str, amp: bool) -> dict:
    model.eval()
    correct, total, loss_sum = 0, 0, 0.0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        with autocast_context(device, amp):
            logits = model(x)
        loss_sum += F.cross_entropy(logits.float(), y, reduction="sum").item()
        correct += (logits.argmax(1) == y).sum().item()
        total += len(y)
    return {"loss": loss_sum / total, "acc": correct / total}

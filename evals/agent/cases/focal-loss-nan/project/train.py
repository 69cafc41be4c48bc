from __future__ import annotations

import json
import math
import os

import torch

from tagger.config import get_config
from tagger.data import build_loaders, infinite
from tagger.losses import FocalLoss
from tagger.metrics import evaluate
from tagger.model import Tagger


def main(argv=None) -> dict:
    cfg = get_config(argv)
    torch.manual_seed(cfg.seed)
    os.makedirs(cfg.out_dir, exist_ok=True)
    train_loader, val_loader = build_loaders(cfg)
    model = Tagger(cfg.n_features, cfg.hidden, cfg.n_tags, cfg.dropout)
    loss_fn = FocalLoss(cfg.focal_gamma, cfg.focal_alpha)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)

    history, losses = [], []
    status = "ok"
    batches = infinite(train_loader)
    for step in range(1, cfg.max_steps + 1):
        x, y = next(batches)
        loss = loss_fn(model(x), y)
        if not math.isfinite(loss.item()):
            print(f"step {step}: loss is {loss.item()}, stopping")
            status = f"non-finite loss at step {step}"
            break
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if step % cfg.eval_every == 0:
            val = evaluate(model, val_loader, loss_fn)
            train_loss = sum(losses[-cfg.eval_every:]) / cfg.eval_every
            history.append({"step": step, "train_loss": train_loss, **val})
            print(f"step {step:5d} | train {train_loss:.5f} | val {val['loss']:.5f} "
                  f"mAP {val['mAP']:.3f} f1 {val['micro_f1']:.3f}")

    metrics = {"status": status, "steps_done": len(losses), "history": history, "config": cfg.as_dict()}
    with open(os.path.join(cfg.out_dir, "metrics.json"), "w") as f:
        json.dump(metrics, f, indent=2)
    torch.save(model.state_dict(), os.path.join(cfg.out_dir, "model.pt"))
    return metrics


if __name__ == "__main__":
    main()

from __future__ import annotations

import argparse
import json
import os

import torch

from textcls.config import add_config_args, config_from_args
from textcls.data import build_datasets, make_eval_loader, make_train_loader
from textcls.engine import evaluate, train_one_epoch
from textcls.model import build_model


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description="Train the review sentiment transformer")
    add_config_args(parser)
    cfg = config_from_args(parser.parse_args(argv))
    torch.manual_seed(cfg.seed)
    os.makedirs(cfg.out_dir, exist_ok=True)

    vocab, train_ds, val_ds = build_datasets(cfg)
    train_loader = make_train_loader(train_ds, vocab, cfg.batch_size, seed=cfg.seed)
    val_loader = make_eval_loader(val_ds, vocab, cfg.eval_batch_size)

    model = build_model(cfg, vocab)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    total_steps = cfg.epochs * len(train_loader)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=cfg.lr, total_steps=total_steps, pct_start=0.1)

    history = []
    for epoch in range(cfg.epochs):
        tr = train_one_epoch(model, train_loader, optimizer, scheduler)
        va = evaluate(model, val_loader)
        history.append({"epoch": epoch, "train": tr, "val": va})
        print(f"epoch {epoch} | train loss {tr['loss']:.4f} acc {tr['acc']:.3f} | val loss {va['loss']:.4f} acc {va['acc']:.3f}")

    torch.save(model.state_dict(), os.path.join(cfg.out_dir, "model.pt"))
    cfg.save(os.path.join(cfg.out_dir, "config.json"))
    metrics = {"history": history, "final_val": history[-1]["val"]}
    with open(os.path.join(cfg.out_dir, "metrics.json"), "w") as f:
        json.dump(metrics, f, indent=2)
    return metrics


if __name__ == "__main__":
    main()

from __future__ import annotations

import argparse
import json
import os
import pickle

import torch
import torch.nn.functional as F

from churn.config import load_config
from churn.data import build_splits, to_loader
from churn.metrics import binary_metrics, predict
from churn.model import ChurnMLP


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description="Train the churn classifier")
    parser.add_argument("--config", default="configs/default.yaml")
    parser.add_argument("--epochs", type=int, default=None)
    parser.add_argument("--out-dir", default=None)
    args = parser.parse_args(argv)
    cfg = load_config(args.config)
    if args.epochs is not None:
        cfg.train.epochs = args.epochs
    if args.out_dir is not None:
        cfg.train.out_dir = args.out_dir
    torch.manual_seed(cfg.data.seed)
    os.makedirs(cfg.train.out_dir, exist_ok=True)

    encoder, train_table, val_table = build_splits(cfg)
    train_loader = to_loader(train_table, encoder, cfg.train.batch_size, shuffle=True, seed=cfg.data.seed)
    val_loader = to_loader(val_table, encoder, 1024, shuffle=False)
    print(f"train rows {len(train_table['churned'])} (churn {train_table['churned'].mean():.2f}) | "
          f"val rows {len(val_table['churned'])} (churn {val_table['churned'].mean():.2f})")

    model = ChurnMLP(encoder.n_features, cfg.model.hidden, cfg.model.dropout)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.train.lr, weight_decay=cfg.train.weight_decay)

    best = {"f1": -1.0}
    for epoch in range(cfg.train.epochs):
        model.train()
        total = 0.0
        for x, y in train_loader:
            loss = F.binary_cross_entropy_with_logits(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(y)
        val = binary_metrics(*predict(model, val_loader))
        if val["f1"] > best["f1"]:
            best = {**val, "epoch": epoch}
            torch.save(model.state_dict(), os.path.join(cfg.train.out_dir, "model.pt"))
        if epoch % 5 == 0 or epoch == cfg.train.epochs - 1:
            print(f"epoch {epoch:3d} | train loss {total / len(train_loader.dataset):.4f} | "
                  f"val acc {val['acc']:.3f} f1 {val['f1']:.3f} (p {val['precision']:.3f} r {val['recall']:.3f})")

    with open(os.path.join(cfg.train.out_dir, "encoder.pkl"), "wb") as f:
        pickle.dump(encoder, f)
    metrics = {"best_val": best}
    with open(os.path.join(cfg.train.out_dir, "metrics.json"), "w") as f:
        json.dump(metrics, f, indent=2)
    print(f"best val f1 {best['f1']:.3f} at epoch {best['epoch']}")
    return metrics


if __name__ == "__main__":
    main()

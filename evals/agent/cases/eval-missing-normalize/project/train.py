from __future__ import annotations

import torch

from leafnet.config import parse
from leafnet.data import build_loaders
from leafnet.engine import evaluate, train_one_epoch
from leafnet.model import LeafCNN
from leafnet.synth import CLASSES
from leafnet.utils import save_run, seed_all


def main(argv=None) -> dict:
    cfg = parse(argv)
    seed_all(cfg.data.seed)
    train_loader, val_loader, stats = build_loaders(cfg)
    model = LeafCNN(cfg.model.widths, len(CLASSES), cfg.model.dropout)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.train.lr, weight_decay=cfg.train.weight_decay)
    history = []
    for epoch in range(cfg.train.epochs):
        tr = train_one_epoch(model, train_loader, optimizer)
        va = evaluate(model, val_loader)
        history.append({"epoch": epoch, "train_loss": tr["loss"], "train_acc": tr["acc"],
                        "val_loss": va["loss"], "val_acc": va["acc"]})
        print(f"epoch {epoch} | train loss {tr['loss']:.4f} acc {tr['acc']:.3f} | "
              f"val loss {va['loss']:.4f} acc {va['acc']:.3f}")
    save_run(cfg.train.out_dir, model, history, stats)
    return history[-1]


if __name__ == "__main__":
    main()

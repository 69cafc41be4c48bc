"""Train the intent classifier.

    python train.py [--config configs/default.yaml] [--set key=value ...]
"""
from __future__ import annotations

import argparse
from pathlib import Path

import torch

from intentrnn.callbacks import BestCheckpoint, HistoryWriter
from intentrnn.config import load_config, to_dict
from intentrnn.data import build_data
from intentrnn.model import build_model
from intentrnn.synth import INTENTS
from intentrnn.trainer import Trainer
from intentrnn.utils import get_logger, seed_everything

log = get_logger("intentrnn")


def run(cfg):
    seed_everything(cfg.seed)
    out = Path(cfg.out_dir)
    vocab, train_loader, val_loader = build_data(cfg.data)
    model = build_model(cfg.model, len(vocab), len(INTENTS), vocab.pad_id)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    log.info("vocab %d, %d parameters", len(vocab), sum(p.numel() for p in model.parameters()))
    extra = {"vocab": vocab.itos, "intents": list(INTENTS), "config": to_dict(cfg)}
    callbacks = [HistoryWriter(out / "metrics.json"), BestCheckpoint(out / "best.pt", extra)]
    trainer = Trainer(model, optimizer, len(INTENTS), callbacks, cfg.grad_clip)
    return trainer.fit(train_loader, val_loader, cfg.epochs)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    args = p.parse_args(argv)
    run(load_config(args.config, args.overrides))


if __name__ == "__main__":
    main()

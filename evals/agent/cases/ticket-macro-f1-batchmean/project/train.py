"""Train the ticket router.

    python train.py [--config configs/default.yaml] [--set key=value ...]

Writes <out_dir>/metrics.json (per epoch), steps.json and best.pt (best val macro-F1).
"""
from __future__ import annotations

import argparse
from pathlib import Path

import torch

from triage.callbacks import EpochLog, KeepBest, StepLog
from triage.config import load_config, to_plain
from triage.data.datasets import build_data, class_counts, n_classes
from triage.engine import Trainer
from triage.losses import build_loss
from triage.models import build_model
from triage.utils import count_parameters, get_logger, seed_everything

log = get_logger("triage")


def run(cfg) -> dict:
    seed_everything(cfg.seed)
    out = Path(cfg.out_dir)
    train_loader, val_loader, vocab = build_data(cfg.data)
    counts = class_counts(train_loader.dataset, n_classes())
    log.info("vocab %d, train per queue %s", len(vocab), counts.tolist())
    model = build_model(cfg.model, len(vocab), n_classes())
    loss_fn = build_loss(cfg.loss, counts)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.optim.lr, weight_decay=cfg.optim.weight_decay)
    log.info("%s: %d parameters", cfg.model.name, count_parameters(model))
    callbacks = [
        StepLog(out / "steps.json", cfg.log_every),
        EpochLog(out / "metrics.json"),
        KeepBest(out / "best.pt", "val_macro_f1", to_plain(cfg)),
    ]
    trainer = Trainer(model, optimizer, loss_fn, callbacks, grad_clip=cfg.optim.grad_clip)
    return trainer.fit(train_loader, val_loader, cfg.epochs, n_classes())


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    args = p.parse_args(argv)
    cfg = load_config(args.config, args.overrides)
    final = run(cfg)
    log.info("final %s", " ".join(f"{k}={v:.4f}" for k, v in final.items()))


if __name__ == "__main__":
    main()

"""Train the defect classifier.

    python train.py [--config configs/default.yaml] [--set key=value ...]

Writes <out_dir>/metrics.json (per epoch), steps.json and best.pt.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import torch

from weavecheck.callbacks import EpochLog, KeepBest, StepLog, StepScheduler
from weavecheck.config import load_config, to_plain
from weavecheck.data.datasets import build_loaders, n_classes
from weavecheck.engine import Trainer
from weavecheck.models import build_model
from weavecheck.utils import count_parameters, get_logger, seed_everything

log = get_logger("weavecheck")


def build_schedule(optimizer, cfg, total_steps: int):
    if cfg.name == "onecycle":
        return torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=[g["lr"] for g in optimizer.param_groups],
                                                   total_steps=total_steps, pct_start=cfg.pct_start)
    if cfg.name == "constant":
        return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda _: 1.0)
    raise KeyError(f"unknown schedule {cfg.name!r}")


def run(cfg) -> dict:
    seed_everything(cfg.seed)
    out = Path(cfg.out_dir)
    train_loader, val_loader = build_loaders(cfg.data)
    model = build_model(cfg.model, n_classes())
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.optim.lr, momentum=cfg.optim.momentum,
                                nesterov=True, weight_decay=cfg.optim.weight_decay)
    scheduler = build_schedule(optimizer, cfg.schedule, cfg.epochs * len(train_loader))
    log.info("%s: %d parameters; %d train / %d val patches", cfg.model.name, count_parameters(model),
             len(train_loader.dataset), len(val_loader.dataset))
    callbacks = [
        StepScheduler(scheduler),
        StepLog(out / "steps.json", cfg.log_every),
        EpochLog(out / "metrics.json"),
        KeepBest(out / "best.pt", "val_acc", to_plain(cfg)),
    ]
    trainer = Trainer(model, optimizer, callbacks, mixup_alpha=cfg.optim.mixup_alpha, seed=cfg.seed)
    return trainer.fit(train_loader, val_loader, cfg.epochs)


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

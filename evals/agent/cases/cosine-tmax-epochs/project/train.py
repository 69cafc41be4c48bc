"""Train the next-hour load forecaster.

    python train.py [--config configs/default.yaml] [--set key=value ...]

Writes runs/<name>/metrics.json (per epoch), steps.json (per step loss and LR) and last.pt.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from loadcast.callbacks import EpochWriter, SaveLast, SchedulerStepper, StepLogger
from loadcast.config import load_config, to_dict
from loadcast.data import build_loaders
from loadcast.features import n_features
from loadcast.model import build_model
from loadcast.optim import build_optimizer, build_scheduler
from loadcast.trainer import Trainer
from loadcast.utils import get_logger, seed_everything

log = get_logger("loadcast")


def run(cfg):
    seed_everything(cfg.seed)
    out = Path(cfg.out_dir)
    train_loader, val_loader = build_loaders(cfg.data)
    model = build_model(cfg.model, n_features(cfg.data.history_hours))
    optimizer = build_optimizer(model, cfg.optim)
    scheduler = build_scheduler(optimizer, cfg.schedule, cfg.epochs)
    callbacks = [
        SchedulerStepper(scheduler, cfg.schedule.interval),
        StepLogger(out / "steps.json", cfg.log_every),
        EpochWriter(out / "metrics.json"),
        SaveLast(out / "last.pt", to_dict(cfg)),
    ]
    log.info("%d train batches per epoch, %d epochs", len(train_loader), cfg.epochs)
    trainer = Trainer(model, optimizer, callbacks, grad_clip=cfg.optim.grad_clip)
    return trainer.fit(train_loader, val_loader, cfg.epochs)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    args = p.parse_args(argv)
    history = run(load_config(args.config, args.overrides))
    log.info("best val_mape %.2f%%", min(r["val_mape"] for r in history))


if __name__ == "__main__":
    main()

"""Train a keyword spotter.

    python train.py [--config configs/default.yaml] [--set key=value ...]

Writes <out_dir>/metrics.json (per epoch), steps.json (loss and LR) and best.pt.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from kwspot.callbacks import EpochLog, KeepBest, StepLog, StepScheduler
from kwspot.config import load_config, to_plain
from kwspot.data.datasets import build_loaders, n_classes
from kwspot.engine import Trainer
from kwspot.models import build_model
from kwspot.optim import build_optimizer, build_scheduler
from kwspot.utils import count_parameters, get_logger, seed_everything

log = get_logger("kwspot")


def run(cfg) -> dict:
    seed_everything(cfg.seed)
    out = Path(cfg.out_dir)
    train_loader, val_loader = build_loaders(cfg.data)
    model = build_model(cfg.model, n_classes())
    optimizer = build_optimizer(model, cfg.optim)
    scheduler = build_scheduler(optimizer, cfg.schedule, total_steps=cfg.epochs * len(train_loader))
    for group in optimizer.param_groups:
        log.info("group %-18s %3d tensors  weight_decay=%g", group["name"], len(group["params"]),
                 group["weight_decay"])
    log.info("%s: %d parameters, %d steps per epoch", cfg.model.name, count_parameters(model), len(train_loader))
    callbacks = [
        StepScheduler(scheduler),
        StepLog(out / "steps.json", cfg.log_every),
        EpochLog(out / "metrics.json"),
        KeepBest(out / "best.pt", "val_acc", to_plain(cfg)),
    ]
    trainer = Trainer(model, optimizer, callbacks, label_smoothing=cfg.optim.label_smoothing,
                      grad_clip=cfg.optim.grad_clip)
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

"""Train the gesture classifier.

    python train.py [--config configs/default.yaml] [--set key=value ...]

Writes <out_dir>/metrics.json (per epoch), steps.json and best.pt.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import torch

from imugest.callbacks import Callback, EpochLog, KeepBest, SamplerEpoch, StepLog
from imugest.config import load_config, to_plain
from imugest.data.datasets import build_loaders, n_classes
from imugest.engine import Trainer
from imugest.models import build_model
from imugest.utils import count_parameters, get_logger, seed_everything

log = get_logger("imugest")


class EpochSchedule(Callback):
    def __init__(self, scheduler):
        self.scheduler = scheduler

    def on_epoch_end(self, trainer, epoch, metrics):
        self.scheduler.step()


def run(cfg) -> dict:
    seed_everything(cfg.seed)
    out = Path(cfg.out_dir)
    train_loader, val_loader = build_loaders(cfg.data)
    model = build_model(cfg.model, n_classes())
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.optim.lr, momentum=cfg.optim.momentum,
                                weight_decay=cfg.optim.weight_decay)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, cfg.schedule.milestones, cfg.schedule.gamma)
    log.info("%s: %d parameters, %d batches per epoch (%s sampler)", cfg.model.name, count_parameters(model),
             len(train_loader), cfg.data.sampler)
    callbacks = [
        SamplerEpoch(train_loader),
        EpochSchedule(scheduler),
        StepLog(out / "steps.json", cfg.log_every),
        EpochLog(out / "metrics.json"),
        KeepBest(out / "best.pt", "val_acc", to_plain(cfg)),
    ]
    trainer = Trainer(model, optimizer, callbacks, grad_clip=cfg.optim.grad_clip)
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

"""Train the activity classifier.

    python train.py --config configs/default.yaml [--set key=value ...]
"""
from __future__ import annotations

import argparse
from pathlib import Path

from harnet.callbacks import Checkpointer, EmaCallback, LossLogger, MetricsWriter
from harnet.config import load_config, to_dict
from harnet.data import build_loaders
from harnet.model import build_model
from harnet.optim import build_optimizer, build_scheduler
from harnet.trainer import Trainer
from harnet.utils import get_logger, seed_everything

log = get_logger()


def run(cfg):
    seed_everything(cfg.seed)
    out = Path(cfg.out_dir)
    train_loader, val_loader = build_loaders(cfg.data)
    model = build_model(cfg.model)
    optimizer = build_optimizer(model, cfg.optim)
    scheduler = build_scheduler(optimizer, cfg.optim)
    callbacks = [LossLogger(cfg.log_every), MetricsWriter(out / "metrics.json"),
                 Checkpointer(out / "last.pt", to_dict(cfg))]
    if cfg.ema.enabled:
        callbacks.insert(0, EmaCallback(cfg.ema.decay, cfg.ema.warmup))
    trainer = Trainer(model, optimizer, scheduler, train_loader, val_loader, callbacks,
                      eval_with_ema=cfg.eval_with_ema and cfg.ema.enabled)
    trainer.fit(cfg.epochs)
    return trainer


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    args = p.parse_args(argv)
    cfg = load_config(args.config, args.overrides)
    trainer = run(cfg)
    final = trainer.history[-1]
    log.info("done: val_acc %.3f val_macro_f1 %.3f (%s)", final["val_acc"], final["val_macro_f1"],
             "EMA weights" if trainer.eval_with_ema else "live weights")


if __name__ == "__main__":
    main()

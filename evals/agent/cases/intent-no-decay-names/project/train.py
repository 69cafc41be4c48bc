"""Train the intent classifier.

    python train.py [--config configs/default.yaml] [optim.lr=3e-4 model.depth=4 ...]
"""
import argparse
import json
import logging
import random
from pathlib import Path

import torch

from intentcls import config as config_lib
from intentcls.data import build_data
from intentcls.engine import KeepBest, LogHook, SchedulerHook, Trainer
from intentcls.losses import build_loss
from intentcls.models import build_model
from intentcls.optim import build_optimizer, build_scheduler


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/default.yaml")
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_args()
    cfg = config_lib.load(args.config, args.overrides)

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    torch.set_num_threads(1)
    random.seed(cfg.run.seed)
    torch.manual_seed(cfg.run.seed)

    train_loader, val_loader, tokenizer, names = build_data(cfg.data)
    model = build_model(cfg.model, len(tokenizer), len(names), tokenizer.pad_id)
    logging.info("vocab %d  intents %d  params %d", len(tokenizer), len(names),
                 sum(p.numel() for p in model.parameters()))
    labels = [label for _, label in train_loader.dataset.items]
    loss_fn = build_loss(cfg.loss, labels, len(names))
    optimizer = build_optimizer(model, cfg.optim)
    scheduler = build_scheduler(optimizer, cfg.optim.epochs * len(train_loader), cfg.optim.warmup_ratio)
    best = KeepBest("val_macro_f1")
    trainer = Trainer(model, optimizer, loss_fn, len(names),
                      hooks=[SchedulerHook(scheduler), LogHook(cfg.run.log_every), best],
                      max_grad_norm=cfg.optim.max_grad_norm)
    trainer.fit(train_loader, val_loader, cfg.optim.epochs)

    out = Path(cfg.run.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.save({"model": best.state, "itos": tokenizer.itos, "intents": names,
                "config": config_lib.to_dict(cfg)}, out / "model.pt")
    summary = {"best_epoch": best.best_epoch, "best_val_macro_f1": best.best}
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    logging.info("best epoch %d  val macro-F1 %.4f", best.best_epoch, best.best)


if __name__ == "__main__":
    main()

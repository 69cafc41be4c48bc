"""Contrastive audio-text training.

    python train.py [-c configs/default.yaml] [-o optim.lr=5e-4 -o epochs=12]
"""
import argparse
from pathlib import Path

import torch

from clapmini.config import as_dict, load_config
from clapmini.data import build_loaders
from clapmini.engine import ClampLogitScale, ConsoleLogger, SaveBest, Trainer, WarmupCosine
from clapmini.models import build_model
from clapmini.utils import count_parameters, seed_all, write_json


def build_optimizer(model, cfg):
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if p.ndim < 2 else decay).append(p)
    groups = [{"params": decay, "weight_decay": cfg.weight_decay},
              {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=cfg.lr, betas=tuple(cfg.betas))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="configs/default.yaml")
    ap.add_argument("-o", "--override", action="append", default=[])
    args = ap.parse_args(argv)
    cfg = load_config(args.config, args.override)
    seed_all(cfg.seed)
    torch.set_num_threads(1)

    train_loader, val_loader, tok = build_loaders(cfg.data)
    model = build_model(cfg.model, len(tok), tok.pad_id)
    print(f"vocab={len(tok)} params={count_parameters(model)} train_batches={len(train_loader)}")
    optimizer = build_optimizer(model, cfg.optim)
    callbacks = [WarmupCosine(optimizer, cfg.optim.warmup_steps, cfg.epochs * len(train_loader)),
                 ClampLogitScale(cfg.model.max_logit_scale), ConsoleLogger(),
                 SaveBest(Path(cfg.out_dir) / "best.pt")]
    trainer = Trainer(model, optimizer, train_loader, val_loader, cfg.epochs,
                      cfg.optim.grad_clip, callbacks)
    trainer.fit()
    final = trainer.evaluate()
    print("final", " ".join(f"{k}={v:.4f}" for k, v in final.items()))
    write_json({"final": final, "config": as_dict(cfg)}, Path(cfg.out_dir) / "metrics.json")


if __name__ == "__main__":
    main()

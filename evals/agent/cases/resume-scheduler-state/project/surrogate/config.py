from __future__ import annotations

import argparse
from dataclasses import dataclass


@dataclass
class Config:
    n_train: int = 8192
    n_val: int = 1024
    in_dim: int = 8
    width: int = 128
    depth: int = 3
    batch_size: int = 128
    epochs: int = 8
    lr: float = 3e-3
    warmup_epochs: float = 1.0
    min_lr_ratio: float = 0.02
    weight_decay: float = 1e-4
    seed: int = 0
    ckpt_dir: str = "checkpoints"
    out_dir: str = "runs/surrogate"
    resume: bool = False
    stop_after_epoch: int = -1


def parse_args(argv=None) -> Config:
    p = argparse.ArgumentParser(description="Train the MLP surrogate of the simulator")
    d = Config()
    p.add_argument("--epochs", type=int, default=d.epochs)
    p.add_argument("--batch-size", type=int, default=d.batch_size)
    p.add_argument("--lr", type=float, default=d.lr)
    p.add_argument("--width", type=int, default=d.width)
    p.add_argument("--depth", type=int, default=d.depth)
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--ckpt-dir", default=d.ckpt_dir)
    p.add_argument("--out-dir", default=d.out_dir)
    p.add_argument("--resume", action="store_true", help="continue from ckpt-dir/last.pt")
    p.add_argument("--stop-after-epoch", type=int, default=-1,
                   help="exit after this epoch (simulates a preempted job)")
    a = p.parse_args(argv)
    return Config(epochs=a.epochs, batch_size=a.batch_size, lr=a.lr, width=a.width, depth=a.depth, seed=a.seed,
                  ckpt_dir=a.ckpt_dir, out_dir=a.out_dir, resume=a.resume, stop_after_epoch=a.stop_after_epoch)

"""LR range test (Smith, 2017): raise the LR exponentially over a few hundred steps and record the loss.

    python tools/lr_range_test.py --config configs/default.yaml --start 1e-4 --end 1.0
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from molprop.config import load_config  # noqa: E402
from molprop.data import build_datasets, build_loaders  # noqa: E402
from molprop.losses import build_loss  # noqa: E402
from molprop.models import build_model  # noqa: E402
from molprop.optim.builders import build_optimizer, set_lr  # noqa: E402
from molprop.utils import seed_everything  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--set", dest="overrides", action="append", default=[])
    p.add_argument("--start", type=float, default=1e-4)
    p.add_argument("--end", type=float, default=1.0)
    p.add_argument("--steps", type=int, default=200)
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    cfg = load_config(args.config, args.overrides)
    seed_everything(int(cfg.train.seed))
    sets = build_datasets(cfg)
    loader = build_loaders(cfg, sets)["train"]
    model = build_model(cfg, n_features=sets["train"].n_features, n_bits=sets["train"].bits.shape[1])
    loss_fn = build_loss(cfg)
    opt = build_optimizer(model, cfg)
    gamma = (args.end / args.start) ** (1.0 / args.steps)
    smooth, best = None, math.inf
    step = 0
    while step < args.steps:
        for batch in loader:
            lr = args.start * gamma ** step
            set_lr(opt, lr)
            loss, _ = loss_fn(model(batch["inputs"]), batch["targets"], batch)
            opt.zero_grad()
            loss.backward()
            opt.step()
            smooth = loss.item() if smooth is None else 0.9 * smooth + 0.1 * loss.item()
            best = min(best, smooth)
            if step % 10 == 0:
                print(f"lr {lr:.2e}  loss {smooth:.4f}")
            if smooth > 4 * best or not math.isfinite(smooth):
                print("loss diverged, stopping")
                return
            step += 1
            if step >= args.steps:
                break


if __name__ == "__main__":
    main()

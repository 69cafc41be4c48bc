"""Confusion matrix and per-class accuracy of a trained checkpoint."""
from __future__ import annotations

import argparse
import os

import torch

from waveclf.config import load_config
from waveclf.data import CLASSES, WaveDataset
from waveclf.model import WaveCNN


@torch.no_grad()
def confusion(model, ds: WaveDataset, batch_size: int = 256) -> torch.Tensor:
    model.eval()
    k = len(CLASSES)
    cm = torch.zeros(k, k, dtype=torch.long)
    for start in range(0, len(ds), batch_size):
        x = ds.x[start : start + batch_size]
        y = ds.labels[start : start + batch_size]
        pred = model(x).argmax(1)
        cm += torch.bincount(y * k + pred, minlength=k * k).view(k, k)
    return cm


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/base.yaml")
    p.add_argument("--run-dir", default=None)
    p.add_argument("--seed", type=int, default=99)
    args = p.parse_args(argv)
    cfg = load_config(args.config)
    run_dir = args.run_dir or cfg.train.out_dir
    model = WaveCNN(cfg.model.channels, len(CLASSES), cfg.model.dropout)
    model.load_state_dict(torch.load(os.path.join(run_dir, "model.pt")))
    ds = WaveDataset(cfg.data.n_val, cfg.data.length, cfg.data.noise_std, seed=args.seed)
    cm = confusion(model, ds)
    print("true\\pred " + " ".join(f"{c[:5]:>6}" for c in CLASSES))
    for i, c in enumerate(CLASSES):
        print(f"{c:>9} " + " ".join(f"{v:6d}" for v in cm[i].tolist()))
    per_class = (cm.diag().float() / cm.sum(1).clamp(min=1)).tolist()
    for c, a in zip(CLASSES, per_class):
        print(f"{c:>9}: {a:.3f}")
    print(f"overall: {cm.diag().sum().item() / cm.sum().item():.3f}")


if __name__ == "__main__":
    main()

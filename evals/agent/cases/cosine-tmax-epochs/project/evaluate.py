"""Evaluate a checkpoint on the validation days, broken down by hour of day.

    python evaluate.py runs/default/last.pt
"""
from __future__ import annotations

import argparse

import torch

from loadcast.config import TrainConfig, merge
from loadcast.data import build_loaders
from loadcast.features import n_features
from loadcast.model import build_model
from loadcast.utils import load_checkpoint


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("checkpoint")
    args = p.parse_args(argv)
    state = load_checkpoint(args.checkpoint)
    cfg = merge(TrainConfig(), state["config"])
    model = build_model(cfg.model, n_features(cfg.data.history_hours))
    model.load_state_dict(state["model"])
    model.eval()
    _, val_loader = build_loaders(cfg.data)
    preds, targets, feats = [], [], []
    with torch.no_grad():
        for x, y in val_loader:
            preds.append(model(x))
            targets.append(y)
            feats.append(x)
    p_, t_, x_ = torch.cat(preds), torch.cat(targets), torch.cat(feats)
    ape = (p_ - t_).abs() / t_.abs().clamp(min=1e-6) * 100
    h = cfg.data.history_hours
    angle = torch.atan2(x_[:, h], x_[:, h + 1])  # sin/cos of the hour of day
    hour = torch.round(angle / (2 * torch.pi) * 24).long() % 24
    print(f"validation MAPE {ape.mean():.2f}% over {len(ape)} forecasts")
    for k in range(24):
        sel = hour == k
        if sel.any():
            print(f"  {k:02d}:00  MAPE {ape[sel].mean():5.2f}%  (n={int(sel.sum())})")


if __name__ == "__main__":
    main()

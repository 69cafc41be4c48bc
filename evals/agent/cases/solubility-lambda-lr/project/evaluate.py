"""Evaluate a trained model on a split and print errors by solubility range.

    python evaluate.py runs/default/model.pt [--split test] [--n 2000]
"""
from __future__ import annotations

import argparse

import numpy as np
import torch
from torch.utils.data import DataLoader

from molprop.config import Node
from molprop.data.features import DescriptorScaler, TargetScaler, build_feature_transform
from molprop.data.loaders import collate
from molprop.metrics import build_metrics, set_target_std
from molprop.models import build_model
from molprop.registry import DATASETS

BINS = [(-np.inf, -6), (-6, -4), (-4, -2), (-2, np.inf)]


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("checkpoint")
    p.add_argument("--split", default="val", choices=["val", "test"])
    p.add_argument("--n", type=int, default=None)
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    ckpt = torch.load(args.checkpoint, map_location="cpu", weights_only=False)
    cfg = Node(ckpt["config"])
    dc = cfg.data
    options = dict(dc.get("options", {}) or {})
    options.setdefault("seed", int(dc.get("seed", 0)))
    ds = DATASETS.build(dc.name, args.split, n=args.n or int(dc.n_val), **options)
    scaler = DescriptorScaler(**ckpt["descriptor_scaler"])
    target = TargetScaler(**ckpt["target_scaler"])
    ds.transform = build_feature_transform(dc.eval_transforms, scaler)
    ds.target_transform = target
    set_target_std(target.std)
    model = build_model(cfg, n_features=ds.n_features, n_bits=ds.bits.shape[1])
    model.load_state_dict(ckpt["model"])
    model.eval()
    preds, ys = [], []
    with torch.no_grad():
        for batch in DataLoader(ds, batch_size=256, collate_fn=collate):
            out = model(batch["inputs"])
            preds.append(out[:, 0] if out.dim() == 2 else out)
            ys.append(batch["targets"])
    pred, y = torch.cat(preds), torch.cat(ys)
    for name, fn in build_metrics(cfg.eval.metrics).items():
        print(f"{name:>14s}: {fn(pred, y):.4f}")
    pred_logs, true_logs = target.inverse(pred.numpy()), target.inverse(y.numpy())
    print("\nRMSE by true logS range:")
    for lo, hi in BINS:
        m = (true_logs >= lo) & (true_logs < hi)
        if m.any():
            err = np.sqrt(np.mean((pred_logs[m] - true_logs[m]) ** 2))
            print(f"  [{lo:>5}, {hi:>5}): {err:.3f}  (n={m.sum()})")


if __name__ == "__main__":
    main()

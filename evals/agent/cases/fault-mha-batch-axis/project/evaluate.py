"""Evaluate a trained model on the val (or test) split and print per-class results.

    python evaluate.py runs/default/model.pt [--split test] [--batch-size 1]
"""
from __future__ import annotations

import argparse

import numpy as np
import torch
from torch.utils.data import DataLoader

from vibrosense.config import Node
from vibrosense.data.loaders import collate
from vibrosense.data.transforms import Standardize, build_transform
from vibrosense.metrics import build_metrics, confusion_matrix
from vibrosense.models import build_model
from vibrosense.registry import DATASETS


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("checkpoint")
    p.add_argument("--split", default="val", choices=["val", "test"])
    p.add_argument("--n", type=int, default=None, help="windows to generate (default: the config's n_val)")
    p.add_argument("--batch-size", type=int, default=None)
    args = p.parse_args(argv)

    torch.set_num_threads(1)
    ckpt = torch.load(args.checkpoint, map_location="cpu", weights_only=False)
    cfg = Node(ckpt["config"])
    dc = cfg.data
    stats = Standardize(ckpt["stats"]["mean"], ckpt["stats"]["std"])
    kwargs = dict(dc.get("options", {}) or {})
    kwargs.setdefault("seed", int(dc.get("seed", 0)))
    ds = DATASETS.build(dc.name, args.split, n=args.n or int(dc.n_val), transform=build_transform(dc.eval_transforms, stats),
                        **kwargs)
    loader = DataLoader(ds, batch_size=args.batch_size or int(dc.get("eval_batch_size", dc.batch_size)),
                        shuffle=False, collate_fn=collate)
    model = build_model(cfg, in_channels=ds.windows.shape[1], num_classes=len(ckpt["classes"]))
    model.load_state_dict(ckpt["model"])
    model.eval()
    logits, targets = [], []
    with torch.no_grad():
        for batch in loader:
            logits.append(model(batch["inputs"]))
            targets.append(batch["targets"])
    logits, targets = torch.cat(logits), torch.cat(targets)
    for name, fn in build_metrics(cfg.eval.metrics).items():
        print(f"{name:>18s}: {fn(logits, targets):.4f}")
    cm = confusion_matrix(logits, targets, len(ckpt["classes"]))
    recall = np.diag(cm) / np.maximum(cm.sum(axis=1), 1)
    print("\nper-class recall:")
    for c, r, n in zip(ckpt["classes"], recall, cm.sum(axis=1)):
        print(f"  {c:>14s}: {r:.3f}  (n={n})")
    print("\nconfusion matrix (rows = true):")
    print(cm)


if __name__ == "__main__":
    main()

"""Evaluate a checkpoint: accuracy per gesture and per recording-length tercile.

    python evaluate.py runs/default/best.pt
"""
from __future__ import annotations

import argparse

import numpy as np
import torch

from imugest.config import _to_node
from imugest.data.datasets import build_loaders, n_classes
from imugest.data.synth import NAMES
from imugest.models import build_model


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("checkpoint")
    args = p.parse_args(argv)
    state = torch.load(args.checkpoint, map_location="cpu", weights_only=False)
    cfg = _to_node(state["config"])
    _, val_loader = build_loaders(cfg.data)
    model = build_model(cfg.model, n_classes())
    model.load_state_dict(state["model"])
    model.eval()
    preds, labels, lengths = [], [], []
    with torch.no_grad():
        for x, mask, y in val_loader:
            preds.append(model(x, mask).argmax(1))
            labels.append(y)
            lengths.append(mask.sum(1))
    pred, label, length = (torch.cat(t).numpy() for t in (preds, labels, lengths))
    print(f"epoch {state['epoch']}  val_acc {np.mean(pred == label):.4f}")
    for c, name in enumerate(NAMES):
        sel = label == c
        print(f"  {name:12s} {np.mean(pred[sel] == c):.3f}")
    edges = np.quantile(length, [1 / 3, 2 / 3])
    for lo, hi, tag in ((0, edges[0], "short"), (edges[0], edges[1], "medium"), (edges[1], np.inf, "long")):
        sel = (length >= lo) & (length < hi)
        print(f"  {tag:12s} {np.mean(pred[sel] == label[sel]):.3f}  (n={sel.sum()})")


if __name__ == "__main__":
    main()

"""Evaluate a checkpoint: accuracy and the confusion matrix on the validation patches.

    python evaluate.py runs/default/best.pt
"""
from __future__ import annotations

import argparse

import torch

from weavecheck.config import _to_node
from weavecheck.data.datasets import build_loaders, n_classes
from weavecheck.data.synth import CLASSES
from weavecheck.models import build_model


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
    k = n_classes()
    confusion = torch.zeros(k, k, dtype=torch.long)
    with torch.no_grad():
        for x, y in val_loader:
            pred = model(x).argmax(1)
            confusion += torch.bincount(y * k + pred, minlength=k * k).view(k, k)
    print(f"epoch {state['epoch']}  val_acc {confusion.diag().sum().item() / confusion.sum().item():.4f}")
    print("true \\ pred " + " ".join(f"{c:>6s}" for c in CLASSES))
    for i, c in enumerate(CLASSES):
        print(f"{c:>11s} " + " ".join(f"{v:6d}" for v in confusion[i].tolist()))


if __name__ == "__main__":
    main()

"""Evaluate a checkpoint on the validation corpus, with per-word accuracy.

    python evaluate.py runs/default/best.pt
"""
from __future__ import annotations

import argparse

import torch

from kwspot.config import _to_node
from kwspot.data.datasets import build_loaders, n_classes
from kwspot.data.synth import LABELS
from kwspot.engine import evaluate
from kwspot.models import build_model


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("checkpoint")
    args = p.parse_args(argv)
    state = torch.load(args.checkpoint, map_location="cpu", weights_only=False)
    cfg = _to_node(state["config"])
    _, val_loader = build_loaders(cfg.data)
    model = build_model(cfg.model, n_classes())
    model.load_state_dict(state["model"])
    print({k: round(v, 4) for k, v in evaluate(model, val_loader, n_classes()).items()})
    model.eval()
    hits = torch.zeros(n_classes())
    seen = torch.zeros(n_classes())
    with torch.no_grad():
        for wave, label in val_loader:
            pred = model(wave).argmax(1)
            hits.index_add_(0, label, (pred == label).float())
            seen.index_add_(0, label, torch.ones_like(label, dtype=torch.float))
    for i, word in enumerate(LABELS):
        print(f"{word:6s} {hits[i] / seen[i]:.3f}")


if __name__ == "__main__":
    main()

"""Evaluate a checkpoint on the validation split (same split and vocabulary as training).

    python evaluate.py runs/default/best.pt
"""
from __future__ import annotations

import argparse

import torch

from triage.config import _to_node
from triage.data.datasets import build_data, n_classes
from triage.engine import evaluate
from triage.models import build_model


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("checkpoint")
    args = p.parse_args(argv)
    state = torch.load(args.checkpoint, map_location="cpu", weights_only=False)
    cfg = _to_node(state["config"])
    _, val_loader, vocab = build_data(cfg.data)
    model = build_model(cfg.model, len(vocab), n_classes())
    model.load_state_dict(state["model"])
    metrics = evaluate(model, val_loader, n_classes())
    print(f"epoch {state['epoch']}: " + " ".join(f"{k}={v:.4f}" for k, v in metrics.items()))


if __name__ == "__main__":
    main()

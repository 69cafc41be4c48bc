"""Retrieval metrics (audio->text and text->audio recall@k) of a saved checkpoint.

    python evaluate.py --ckpt runs/default/best.pt
"""
import argparse

import torch

from clapmini.config import load_config
from clapmini.data import build_loaders
from clapmini.engine import Trainer
from clapmini.models import build_model


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="configs/default.yaml")
    ap.add_argument("--ckpt", required=True)
    args = ap.parse_args(argv)
    cfg = load_config(args.config)
    _, val_loader, tok = build_loaders(cfg.data)
    model = build_model(cfg.model, len(tok), tok.pad_id)
    model.load_state_dict(torch.load(args.ckpt, map_location="cpu")["model"])
    metrics = Trainer(model, None, None, val_loader, 0).evaluate()
    print(" ".join(f"{k}={v:.4f}" for k, v in metrics.items()))


if __name__ == "__main__":
    main()

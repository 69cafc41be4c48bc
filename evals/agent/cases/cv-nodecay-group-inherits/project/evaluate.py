"""python evaluate.py --ckpt runs/default/best.pt [--config configs/default.yaml]"""
import argparse

import torch

from shapecls.config import load
from shapecls.data import build_loaders
from shapecls.engine import evaluate
from shapecls.models import build_model


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/default.yaml")
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--opt", action="append", default=[])
    args = ap.parse_args(argv)
    cfg = load(args.config, args.opt)
    _, val_loader = build_loaders(cfg.data)
    model = build_model(cfg.model)
    model.load_state_dict(torch.load(args.ckpt, map_location="cpu")["model"])
    metrics = evaluate(model, val_loader, cfg.num_classes)
    print(" ".join(f"{k}={v:.4f}" for k, v in metrics.items()))


if __name__ == "__main__":
    main()

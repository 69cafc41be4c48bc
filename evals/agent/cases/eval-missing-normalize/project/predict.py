"""Classify crops with a trained model and print per-class probabilities."""
from __future__ import annotations

import argparse
import json
import os

import torch

from leafnet.config import load
from leafnet.model import LeafCNN
from leafnet.synth import CLASSES, make_crops
from leafnet.transforms import build_transform


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--run-dir", default=None)
    p.add_argument("--n", type=int, default=8)
    p.add_argument("--seed", type=int, default=123)
    args = p.parse_args(argv)
    cfg = load(args.config)
    run_dir = args.run_dir or cfg.train.out_dir
    with open(os.path.join(run_dir, "metrics.json")) as f:
        stats = json.load(f)["input_stats"]
    transform = build_transform("test", torch.tensor(stats["mean"]), torch.tensor(stats["std"]))
    model = LeafCNN(cfg.model.widths, len(CLASSES), cfg.model.dropout)
    model.load_state_dict(torch.load(os.path.join(run_dir, "model.pt")))
    model.eval()
    images, labels = make_crops(args.n, cfg.data.crop, args.seed)
    with torch.no_grad():
        probs = model(torch.stack([transform(img) for img in images])).softmax(1)
    for i, (pr, y) in enumerate(zip(probs, labels)):
        best = int(pr.argmax())
        print(f"crop {i}: {CLASSES[best]:8s} p={pr[best]:.2f} (true {CLASSES[int(y)]})")


if __name__ == "__main__":
    main()

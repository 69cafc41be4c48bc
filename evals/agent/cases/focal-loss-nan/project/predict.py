"""Suggest tags for items with a trained checkpoint."""
from __future__ import annotations

import argparse
import json
import os

import torch

from tagger.config import Config
from tagger.data import make_catalogue
from tagger.model import Tagger


def load_model(run_dir: str) -> tuple[Tagger, Config]:
    with open(os.path.join(run_dir, "metrics.json")) as f:
        cfg = Config(**json.load(f)["config"])
    model = Tagger(cfg.n_features, cfg.hidden, cfg.n_tags, cfg.dropout)
    model.load_state_dict(torch.load(os.path.join(run_dir, "model.pt")))
    model.eval()
    return model, cfg


@torch.no_grad()
def suggest(model: Tagger, x: torch.Tensor, threshold: float, top_k: int) -> list[list[tuple[int, float]]]:
    probs = torch.sigmoid(model(x))
    out = []
    for row in probs:
        scores, idx = row.topk(top_k)
        out.append([(int(i), round(float(s), 4)) for s, i in zip(scores, idx) if s >= threshold])
    return out


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--run-dir", default="runs/tagger")
    p.add_argument("--n", type=int, default=5)
    p.add_argument("--threshold", type=float, default=0.5)
    p.add_argument("--top-k", type=int, default=3)
    args = p.parse_args(argv)
    model, cfg = load_model(args.run_dir)
    x, y = make_catalogue(args.n, cfg.n_features, cfg.n_tags, seed=cfg.seed + 777)
    for i, tags in enumerate(suggest(model, x, args.threshold, args.top_k)):
        true = torch.nonzero(y[i]).flatten().tolist()
        print(f"item {i}: suggested {tags} | true {true}")


if __name__ == "__main__":
    main()

"""Error report of a checkpoint against fresh simulator samples."""
from __future__ import annotations

import argparse
import json

import torch

from surrogate.config import Config
from surrogate.data import make_split
from surrogate.model import Surrogate


@torch.no_grad()
def error_report(model, n: int, in_dim: int, seed: int) -> dict:
    ds = make_split(n, in_dim, seed)
    x, y = ds.tensors
    pred = model(x)
    abs_err = (pred - y).abs().squeeze(1)
    q = torch.quantile(abs_err, torch.tensor([0.5, 0.9, 0.99]))
    return {
        "mse": torch.mean((pred - y) ** 2).item(),
        "mae": abs_err.mean().item(),
        "p50": q[0].item(),
        "p90": q[1].item(),
        "p99": q[2].item(),
        "max": abs_err.max().item(),
    }


def main(argv=None) -> dict:
    p = argparse.ArgumentParser()
    p.add_argument("--ckpt", default="checkpoints/last.pt")
    p.add_argument("--n", type=int, default=20000)
    p.add_argument("--seed", type=int, default=123)
    args = p.parse_args(argv)
    cfg = Config()
    state = torch.load(args.ckpt, weights_only=False)
    model = Surrogate(cfg.in_dim, cfg.width, cfg.depth)
    model.load_state_dict(state["model"])
    model.eval()
    report = error_report(model, args.n, cfg.in_dim, args.seed)
    report["epoch"] = state["epoch"]
    print(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()

"""Score a saved checkpoint on a fresh batch of recordings.

    python evaluate.py runs/default/last.pt [--weights ema|live] [--n 2000]
"""
from __future__ import annotations

import argparse

import torch
from torch.utils.data import DataLoader

from harnet.config import TrainConfig, merge
from harnet.data import WindowDataset
from harnet.metrics import ConfusionMatrix
from harnet.model import build_model
from harnet.synth import ACTIVITIES, make_recordings
from harnet.utils import load_checkpoint


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("checkpoint")
    p.add_argument("--weights", choices=["ema", "live"], default="ema")
    p.add_argument("--n", type=int, default=2000)
    p.add_argument("--seed", type=int, default=4242)
    args = p.parse_args(argv)

    state = load_checkpoint(args.checkpoint)
    cfg = merge(TrainConfig(), state["config"])
    model = build_model(cfg.model)
    if args.weights == "ema" and "ema" in state:
        model.load_state_dict(state["ema"]["module"])
    else:
        model.load_state_dict(state["model"])
    model.eval()

    x, y = make_recordings(args.n, cfg.data.window, cfg.data.sample_rate, args.seed)
    loader = DataLoader(WindowDataset(x, y), batch_size=256)
    cm = ConfusionMatrix(len(ACTIVITIES))
    with torch.no_grad():
        for xb, yb in loader:
            cm.update(model(xb), yb)
    print(f"{args.weights} weights: accuracy {cm.accuracy():.3f}  macro-F1 {cm.macro_f1():.3f}  (n={args.n})")


if __name__ == "__main__":
    main()

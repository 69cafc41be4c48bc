"""Re-evaluate a trained checkpoint on the validation and test segments.

    python evaluate.py --config configs/default.yaml [--ckpt runs/default/best.pt]
"""
import argparse
import json
from pathlib import Path

import torch

from gridcast.config import load_config
from gridcast.data import build_loaders
from gridcast.engine import evaluate
from gridcast.models import build_model


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/default.yaml")
    parser.add_argument("--ckpt", default=None)
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    args = parser.parse_args()

    cfg = load_config(args.config, args.overrides)
    torch.set_num_threads(1)
    ckpt = Path(args.ckpt or Path(cfg.run.out_dir) / "best.pt")
    loaders, _ = build_loaders(cfg.data)
    model = build_model(cfg.model, cfg.data)
    model.load_state_dict(torch.load(ckpt)["model"])
    report = {split: evaluate(model, loaders[split]) for split in ("val", "test")}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

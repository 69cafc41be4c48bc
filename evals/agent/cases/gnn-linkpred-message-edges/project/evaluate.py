"""Score a saved checkpoint on the test edges.

    python evaluate.py --config configs/default.yaml --ckpt runs/default/best.pt
"""
import argparse

import torch

from linkgraph.config import load_config
from linkgraph.data import build_datamodule
from linkgraph.engine import Trainer
from linkgraph.models import build_model
from linkgraph.utils import seed_everything


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/default.yaml")
    parser.add_argument("--ckpt", default=None)
    parser.add_argument("--stage", default="test", choices=["val", "test"])
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    args = parser.parse_args(argv)

    cfg = load_config(args.config, args.overrides)
    seed_everything(cfg.seed)
    dm = build_datamodule(cfg.data)
    model = build_model(cfg.model, dm.num_features)
    ckpt = args.ckpt or f"{cfg.out_dir}/best.pt"
    model.load_state_dict(torch.load(ckpt, map_location="cpu")["model"])
    metrics = Trainer(cfg, model, dm).evaluate(args.stage)
    print(" ".join(f"{k}={v:.4f}" for k, v in metrics.items()))


if __name__ == "__main__":
    main()

"""Evaluate a checkpoint on the validation day, overall and per slot.

    python evaluate.py [--config configs/default.yaml] [--ckpt runs/default/model.pt]
"""
import argparse
import json

import numpy as np
import torch

from adclick.config import load_config
from adclick.data import FIELD_NAMES, build_data
from adclick.engine import predict
from adclick.metrics import summarize
from adclick.models import build_model


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/default.yaml")
    parser.add_argument("--ckpt", default=None)
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    args = parser.parse_args()
    cfg = load_config(args.config, args.overrides)
    torch.set_num_threads(1)

    _, val_loader, encoder = build_data(cfg.data)
    ckpt = torch.load(args.ckpt or f"{cfg.run.out_dir}/model.pt", weights_only=False)
    model = build_model(cfg.model, ckpt["field_dims"])
    model.load_state_dict(ckpt["model"])
    labels, probs = predict(model, val_loader)
    report = {"overall": summarize(labels, probs)}

    slots = val_loader.dataset.tensors[0][:, FIELD_NAMES.index("slot")].numpy()
    names = {i: v for v, i in encoder.encoders["slot"].index.items()}
    for code in np.unique(slots):
        mask = slots == code
        report[f"slot={names.get(int(code), 'OOV')}"] = summarize(labels[mask], probs[mask])
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

"""Score the best checkpoint on the hand-audited field batch (plant C by default).

    python evaluate_field.py runs/default/best.pt [--sites plant_c] [--out field.json]
"""
from __future__ import annotations

import argparse

import torch
from torch.utils.data import DataLoader

from defectcls.config import TrainConfig, merge
from defectcls.datasets import build_dataset
from defectcls.metrics import ConfusionMatrix
from defectcls.model import build_model
from defectcls.synth import N_FEATURES, simulate
from defectcls.transforms import Standardizer, eval_transform
from defectcls.utils import load_checkpoint, save_json


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("checkpoint")
    p.add_argument("--sites", nargs="+", default=None)
    p.add_argument("--seed", type=int, default=777)
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)

    state = load_checkpoint(args.checkpoint)
    cfg = merge(TrainConfig(), state["config"])
    classes = state["classes"]
    src = cfg.data.field
    sites = args.sites or list(src.sites)
    records = simulate(sites, src.n_per_site, args.seed)
    ds = build_dataset(src.kind, records, classes=classes, sites=sites,
                       transform=eval_transform(Standardizer.from_state(state["standardizer"])))

    model = build_model(cfg.model, N_FEATURES, len(classes))
    model.load_state_dict(state["model"])
    model.eval()
    cm = ConfusionMatrix(len(classes))
    with torch.no_grad():
        for x, y in DataLoader(ds, batch_size=512):
            cm.update(model(x), y)
    result = {"sites": sites, "n": len(ds), "accuracy": cm.accuracy(), "macro_f1": cm.macro_f1(),
              "cameras": sorted(ds.by_camera)}
    print(f"field {','.join(sites)} (n={len(ds)}, cameras {result['cameras']}): "
          f"accuracy {result['accuracy']:.3f}  macro-F1 {result['macro_f1']:.3f}")
    if args.out:
        save_json(result, args.out)


if __name__ == "__main__":
    main()

"""Evaluate a trained delineation model and print per-wave IoU / onset F1.

    python evaluate.py runs/default/model.pt [--split test] [--n 400]
"""
from __future__ import annotations

import argparse

import torch
from torch.utils.data import DataLoader

from ecgseg.config import Node
from ecgseg.data.loaders import collate
from ecgseg.data.transforms import build_transform
from ecgseg.metrics import build_metrics, iou_per_class, onset_f1
from ecgseg.models import build_model
from ecgseg.registry import DATASETS


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("checkpoint")
    p.add_argument("--split", default="val", choices=["val", "test"])
    p.add_argument("--n", type=int, default=None)
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    ckpt = torch.load(args.checkpoint, map_location="cpu", weights_only=False)
    cfg = Node(ckpt["config"])
    dc = cfg.data
    options = dict(dc.get("options", {}) or {})
    options.setdefault("seed", int(dc.get("seed", 0)))
    ds = DATASETS.build(dc.name, args.split, n=args.n or int(dc.n_val), transform=build_transform(dc.eval_transforms),
                        **options)
    model = build_model(cfg, in_channels=ds.signals.shape[1], num_classes=len(ckpt["classes"]))
    model.load_state_dict(ckpt["model"])
    model.eval()
    logits, targets = [], []
    with torch.no_grad():
        for batch in DataLoader(ds, batch_size=32, collate_fn=collate):
            logits.append(model(batch["inputs"]))
            targets.append(batch["targets"])
    logits, targets = torch.cat(logits), torch.cat(targets)
    for name, fn in build_metrics(cfg.eval.metrics).items():
        print(f"{name:>16s}: {fn(logits, targets):.4f}")
    ious = iou_per_class(logits, targets)
    print("\nper-wave:")
    for c, name in enumerate(ckpt["classes"]):
        line = f"  {name:>5s}  IoU {ious[c]:.3f}"
        if c:
            line += f"  onset F1 {onset_f1(logits, targets, c):.3f}"
        print(line)
    pred_frac = torch.bincount(logits.argmax(1).flatten(), minlength=len(ckpt["classes"])).float()
    print("\npredicted label fractions:", [round(float(x), 3) for x in pred_frac / pred_frac.sum()])


if __name__ == "__main__":
    main()

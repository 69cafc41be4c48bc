"""Train the defect classifier on the labelled stations (plant A and B).

    python train.py [--config configs/default.yaml] [--set key=value ...]
"""
from __future__ import annotations

import argparse
from pathlib import Path

import torch
from torch.utils.data import DataLoader

from defectcls.callbacks import BestCheckpoint, EarlyStopping, HistoryWriter
from defectcls.config import load_config, to_dict
from defectcls.datasets import build_dataset
from defectcls.model import build_model
from defectcls.records import feature_matrix, split_records
from defectcls.synth import N_FEATURES, simulate
from defectcls.trainer import Trainer
from defectcls.transforms import Standardizer, eval_transform, train_transform
from defectcls.utils import get_logger, seed_everything

log = get_logger("defectcls")


def run(cfg):
    seed_everything(cfg.seed)
    out = Path(cfg.out_dir)
    src = cfg.data.train
    records = simulate(src.sites, src.n_per_site, cfg.data.seed)
    train_records, val_records = split_records(records, cfg.data.val_fraction, cfg.data.seed)
    standardizer = Standardizer().fit(feature_matrix(train_records))

    train_ds = build_dataset(src.kind, train_records, transform=train_transform(standardizer, cfg.data.noise_std))
    val_ds = build_dataset(src.kind, val_records, classes=train_ds.classes, transform=eval_transform(standardizer))
    log.info("classes %s; train counts %s", train_ds.classes, train_ds.class_counts())

    g = torch.Generator().manual_seed(cfg.seed)
    train_loader = DataLoader(train_ds, batch_size=cfg.data.batch_size, shuffle=True, generator=g)
    val_loader = DataLoader(val_ds, batch_size=512)

    model = build_model(cfg.model, N_FEATURES, len(train_ds.classes))
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    extra = {"classes": train_ds.classes, "standardizer": standardizer.state_dict(), "config": to_dict(cfg)}
    callbacks = [HistoryWriter(out / "history.json"), BestCheckpoint(out / "best.pt", extra),
                 EarlyStopping(cfg.patience)]
    trainer = Trainer(model, optimizer, len(train_ds.classes), callbacks, cfg.label_smoothing)
    trainer.fit(train_loader, val_loader, cfg.epochs)
    return trainer


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    args = p.parse_args(argv)
    run(load_config(args.config, args.overrides))


if __name__ == "__main__":
    main()

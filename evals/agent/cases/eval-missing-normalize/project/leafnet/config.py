from __future__ import annotations

import argparse
from types import SimpleNamespace

import yaml


def _to_ns(obj):
    if isinstance(obj, dict):
        return SimpleNamespace(**{k: _to_ns(v) for k, v in obj.items()})
    return obj


def load(path: str, overrides: dict | None = None) -> SimpleNamespace:
    with open(path) as f:
        raw = yaml.safe_load(f)
    for dotted, value in (overrides or {}).items():
        section, key = dotted.split(".")
        if key not in raw[section]:
            raise KeyError(dotted)
        raw[section][key] = value
    return _to_ns(raw)


def parse(argv=None) -> SimpleNamespace:
    p = argparse.ArgumentParser(description="Train the leaf-disease classifier")
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--epochs", type=int)
    p.add_argument("--lr", type=float)
    p.add_argument("--weight-decay", type=float)
    p.add_argument("--out", help="output folder (train.out_dir)")
    a = p.parse_args(argv)
    overrides = {k: v for k, v in {"train.epochs": a.epochs, "train.lr": a.lr,
                                   "train.weight_decay": a.weight_decay, "train.out_dir": a.out}.items()
                 if v is not None}
    return load(a.config, overrides)

"""Defaults below; a YAML file and then `--set a.b=value` overrides are merged on top."""
from __future__ import annotations

import copy
from pathlib import Path

import yaml

DEFAULTS = {
    "data": {
        "n_days": 7,
        "rows_per_day": 7000,
        "val_days": 1,            # the last day(s) are held out
        "min_count": 5,           # rarer values share the out-of-vocabulary bucket
        "batch_size": 512,
        "eval_batch_size": 4096,
        "seed": 11,
    },
    "model": {
        "name": "deepfm",
        "embed_dim": 8,
        "mlp_dims": [64, 32],
        "dropout": 0.1,
    },
    "optim": {
        "lr": 0.003,
        "weight_decay": 1.0e-6,
        "epochs": 4,
    },
    "run": {
        "seed": 0,
        "out_dir": "runs/default",
        "log_every": 40,
    },
}


class Cfg(dict):
    __getattr__ = dict.__getitem__


def _wrap(obj):
    return Cfg({k: _wrap(v) for k, v in obj.items()}) if isinstance(obj, dict) else obj


def _merge(dst: dict, src: dict, prefix: str = "") -> None:
    for key, value in src.items():
        if key not in dst:
            raise KeyError(f"unknown config key {prefix}{key}")
        if isinstance(dst[key], dict):
            _merge(dst[key], value, f"{prefix}{key}.")
        else:
            dst[key] = value


def load_config(path=None, overrides=()) -> Cfg:
    data = copy.deepcopy(DEFAULTS)
    if path:
        _merge(data, yaml.safe_load(Path(path).read_text()) or {})
    for item in overrides:
        dotted, _, raw = item.partition("=")
        node = {}
        parts = dotted.split(".")
        cursor = node
        for part in parts[:-1]:
            cursor = cursor.setdefault(part, {})
        cursor[parts[-1]] = yaml.safe_load(raw)
        _merge(data, node)
    return _wrap(data)

"""Typed experiment configuration.

Defaults live in the dataclasses below. A YAML file overrides any subset of them and
``--set section.key=value`` arguments override the YAML, e.g.

    python train.py --config configs/default.yaml --set optim.lr=3e-3 --set data.pred_len=48
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

import yaml


@dataclass
class DataConfig:
    n_steps: int = 6000            # hourly samples in the generated archive
    n_channels: int = 7            # feeders measured at the substation
    seq_len: int = 96              # look-back window (hours)
    pred_len: int = 24             # forecast horizon (hours)
    train_frac: float = 0.7
    test_frac: float = 0.2         # the rest (0.1) is validation
    batch_size: int = 64
    eval_batch_size: int = 64
    num_workers: int = 0
    seed: int = 7


@dataclass
class ModelConfig:
    name: str = "dlinear"
    kernel_size: int = 25          # moving-average window of the trend/season split
    individual: bool = False       # one linear head per channel
    hidden: int = 128              # used by the patch MLP only
    patch_len: int = 16
    dropout: float = 0.1
    revin: bool = True


@dataclass
class OptimConfig:
    lr: float = 5e-3
    weight_decay: float = 0.0
    epochs: int = 6
    lr_decay: float = 0.5          # multiplicative decay applied after every epoch
    grad_clip: float = 1.0
    loss: str = "mse"


@dataclass
class RunConfig:
    out_dir: str = "runs/default"
    patience: int = 3
    log_every: int = 50
    seed: int = 2021


@dataclass
class Config:
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    run: RunConfig = field(default_factory=RunConfig)


def _coerce(current, raw):
    if isinstance(raw, str) and not isinstance(current, str):
        raw = yaml.safe_load(raw)
    if isinstance(current, bool):
        return bool(raw)
    if isinstance(current, int) and not isinstance(current, bool):
        return int(raw)
    if isinstance(current, float):
        return float(raw)
    return raw


def _update(section, values: dict, where: str) -> None:
    names = {f.name for f in dataclasses.fields(section)}
    for key, raw in values.items():
        if key not in names:
            raise KeyError(f"unknown config key {where}.{key}")
        setattr(section, key, _coerce(getattr(section, key), raw))


def load_config(path: str | None = None, overrides: list[str] | tuple = ()) -> Config:
    cfg = Config()
    if path:
        data = yaml.safe_load(Path(path).read_text()) or {}
        for name, values in data.items():
            if not hasattr(cfg, name):
                raise KeyError(f"unknown config section {name!r}")
            _update(getattr(cfg, name), values or {}, name)
    for item in overrides:
        dotted, _, raw = item.partition("=")
        section, _, key = dotted.strip().partition(".")
        if not hasattr(cfg, section) or not key:
            raise KeyError(f"bad override {item!r}")
        _update(getattr(cfg, section), {key: raw}, section)
    return cfg


def as_dict(cfg: Config) -> dict:
    return dataclasses.asdict(cfg)

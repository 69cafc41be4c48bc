"""Experiment configuration: nested dataclasses filled from a YAML file plus CLI overrides."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

import yaml


@dataclass
class DataConfig:
    n_train: int = 3000
    n_val: int = 800
    window: int = 64
    sample_rate: float = 25.0
    jitter_std: float = 0.05
    scale_range: tuple = (0.9, 1.1)
    batch_size: int = 64
    num_workers: int = 0
    seed: int = 0


@dataclass
class ModelConfig:
    name: str = "tcn"
    channels: int = 32
    depth: int = 3
    kernel_size: int = 5
    dropout: float = 0.1


@dataclass
class OptimConfig:
    name: str = "adamw"
    lr: float = 2e-3
    weight_decay: float = 1e-4
    warmup_steps: int = 50


@dataclass
class EmaConfig:
    enabled: bool = True
    decay: float = 0.998
    warmup: bool = True


@dataclass
class TrainConfig:
    epochs: int = 6
    log_every: int = 25
    eval_with_ema: bool = True
    seed: int = 0
    out_dir: str = "runs/default"
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    ema: EmaConfig = field(default_factory=EmaConfig)


def merge(obj, values: dict):
    for key, value in values.items():
        if not hasattr(obj, key):
            raise KeyError(f"unknown config key {key!r} for {type(obj).__name__}")
        current = getattr(obj, key)
        if dataclasses.is_dataclass(current):
            merge(current, value)
        else:
            setattr(obj, key, tuple(value) if isinstance(current, tuple) else value)
    return obj


def _parse_override(text: str):
    key, _, raw = text.partition("=")
    value = yaml.safe_load(raw)
    node: dict = {}
    cursor = node
    parts = key.strip().split(".")
    for part in parts[:-1]:
        cursor = cursor.setdefault(part, {})
    cursor[parts[-1]] = value
    return node


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> TrainConfig:
    cfg = TrainConfig()
    if path is not None:
        with open(path) as f:
            merge(cfg, yaml.safe_load(f) or {})
    for text in overrides or []:
        merge(cfg, _parse_override(text))
    return cfg


def to_dict(cfg: TrainConfig) -> dict:
    return dataclasses.asdict(cfg)

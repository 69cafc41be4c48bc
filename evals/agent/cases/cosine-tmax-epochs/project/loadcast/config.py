"""Experiment configuration (dataclasses), read from YAML with `--set a.b=value` overrides."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

import yaml


@dataclass
class DataConfig:
    n_feeders: int = 4
    n_days: int = 60
    history_hours: int = 24
    val_days: int = 10
    batch_size: int = 64
    seed: int = 0


@dataclass
class ModelConfig:
    name: str = "mlp"
    hidden: int = 128
    depth: int = 3
    dropout: float = 0.0


@dataclass
class OptimConfig:
    name: str = "adamw"
    lr: float = 3e-3
    weight_decay: float = 1e-4
    betas: tuple = (0.9, 0.99)
    grad_clip: float = 1.0


@dataclass
class ScheduleConfig:
    name: str = "cosine"
    warmup_steps: int = 100
    min_lr: float = 1e-5
    interval: str = "step"   # when the scheduler is stepped: "step" (every batch) or "epoch"


@dataclass
class TrainConfig:
    epochs: int = 20
    seed: int = 0
    log_every: int = 50
    out_dir: str = "runs/default"
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    schedule: ScheduleConfig = field(default_factory=ScheduleConfig)


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


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> TrainConfig:
    cfg = TrainConfig()
    if path is not None:
        with open(path) as f:
            merge(cfg, yaml.safe_load(f) or {})
    for text in overrides or []:
        key, _, raw = text.partition("=")
        node: dict = {}
        cursor = node
        parts = key.strip().split(".")
        for part in parts[:-1]:
            cursor = cursor.setdefault(part, {})
        cursor[parts[-1]] = yaml.safe_load(raw)
        merge(cfg, node)
    return cfg


def to_dict(cfg: TrainConfig) -> dict:
    return dataclasses.asdict(cfg)

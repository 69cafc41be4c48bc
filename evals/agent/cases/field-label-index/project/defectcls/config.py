"""Experiment configuration: nested dataclasses filled from YAML plus `--set a.b=value` overrides."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

import yaml


@dataclass
class SourceConfig:
    kind: str = "labelled"
    sites: tuple = ("plant_a", "plant_b")
    n_per_site: int = 1500


@dataclass
class DataConfig:
    train: SourceConfig = field(default_factory=SourceConfig)
    field: SourceConfig = field(default_factory=lambda: SourceConfig(kind="field", sites=("plant_c",), n_per_site=1200))
    val_fraction: float = 0.2
    noise_std: float = 0.05
    batch_size: int = 64
    seed: int = 0


@dataclass
class ModelConfig:
    name: str = "mlp"
    hidden: int = 128
    depth: int = 2
    dropout: float = 0.1


@dataclass
class TrainConfig:
    epochs: int = 8
    lr: float = 1e-3
    weight_decay: float = 1e-4
    label_smoothing: float = 0.05
    patience: int = 3
    seed: int = 0
    out_dir: str = "runs/default"
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)


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


def parse_override(text: str) -> dict:
    key, _, raw = text.partition("=")
    node: dict = {}
    cursor = node
    parts = key.strip().split(".")
    for part in parts[:-1]:
        cursor = cursor.setdefault(part, {})
    cursor[parts[-1]] = yaml.safe_load(raw)
    return node


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> TrainConfig:
    cfg = TrainConfig()
    if path is not None:
        with open(path) as f:
            merge(cfg, yaml.safe_load(f) or {})
    for text in overrides or []:
        merge(cfg, parse_override(text))
    return cfg


def to_dict(cfg: TrainConfig) -> dict:
    return dataclasses.asdict(cfg)

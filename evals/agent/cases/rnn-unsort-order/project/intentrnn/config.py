"""Experiment configuration (dataclasses), read from YAML with `--set a.b=value` overrides."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

import yaml


@dataclass
class DataConfig:
    n_train: int = 4000
    n_val: int = 800
    min_len: int = 4
    max_len: int = 40
    max_vocab: int = 2000
    batch_size: int = 32
    word_dropout: float = 0.05
    seed: int = 0


@dataclass
class ModelConfig:
    encoder: str = "gru"
    pooler: str = "last"
    embed_dim: int = 64
    hidden: int = 96
    layers: int = 1
    bidirectional: bool = False
    dropout: float = 0.1


@dataclass
class TrainConfig:
    epochs: int = 6
    lr: float = 2e-3
    weight_decay: float = 0.0
    grad_clip: float = 5.0
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
            setattr(obj, key, value)
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

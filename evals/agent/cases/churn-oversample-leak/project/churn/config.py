from __future__ import annotations

from dataclasses import dataclass, field

import yaml


@dataclass
class DataConfig:
    n_customers: int = 6000
    churn_rate: float = 0.12
    val_fraction: float = 0.2
    balance_classes: bool = True
    seed: int = 7


@dataclass
class ModelConfig:
    hidden: list = field(default_factory=lambda: [128, 128])
    dropout: float = 0.0


@dataclass
class TrainConfig:
    epochs: int = 40
    batch_size: int = 128
    lr: float = 2e-3
    weight_decay: float = 0.0
    out_dir: str = "runs/churn"


@dataclass
class Config:
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    train: TrainConfig = field(default_factory=TrainConfig)


def load_config(path: str | None) -> Config:
    cfg = Config()
    if path is None:
        return cfg
    with open(path) as f:
        raw = yaml.safe_load(f) or {}
    for section in ("data", "model", "train"):
        for key, value in (raw.get(section) or {}).items():
            if not hasattr(getattr(cfg, section), key):
                raise KeyError(f"unknown config key {section}.{key}")
            setattr(getattr(cfg, section), key, value)
    return cfg

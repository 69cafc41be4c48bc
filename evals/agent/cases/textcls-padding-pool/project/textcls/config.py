from __future__ import annotations

import argparse
import json
from dataclasses import asdict, dataclass, fields


@dataclass
class Config:
    n_train: int = 3000
    n_val: int = 600
    min_len: int = 4
    max_len: int = 40
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2
    ffn_dim: int = 128
    dropout: float = 0.1
    num_classes: int = 2
    epochs: int = 6
    batch_size: int = 32
    eval_batch_size: int = 64
    lr: float = 1e-3
    weight_decay: float = 0.01
    seed: int = 0
    out_dir: str = "runs/textcls"

    def save(self, path: str) -> None:
        with open(path, "w") as f:
            json.dump(asdict(self), f, indent=2)

    @classmethod
    def load(cls, path: str) -> "Config":
        with open(path) as f:
            return cls(**json.load(f))


def add_config_args(parser: argparse.ArgumentParser) -> None:
    for f in fields(Config):
        parser.add_argument(f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default)


def config_from_args(ns: argparse.Namespace) -> Config:
    return Config(**{f.name: getattr(ns, f.name) for f in fields(Config)})

from __future__ import annotations

import argparse
from dataclasses import asdict, dataclass


@dataclass
class Config:
    n_items: int = 20000
    n_features: int = 32
    n_tags: int = 12
    hidden: int = 256
    dropout: float = 0.1
    focal_gamma: float = 2.0
    focal_alpha: float = 0.25
    lr: float = 3e-3
    weight_decay: float = 0.0
    batch_size: int = 256
    max_steps: int = 3000
    eval_every: int = 250
    seed: int = 0
    out_dir: str = "runs/tagger"

    def as_dict(self) -> dict:
        return asdict(self)


def get_config(argv=None) -> Config:
    default = Config()
    p = argparse.ArgumentParser(description="Multi-label tagger with focal loss")
    for name, value in default.as_dict().items():
        p.add_argument("--" + name.replace("_", "-"), type=type(value), default=value)
    return Config(**vars(p.parse_args(argv)))

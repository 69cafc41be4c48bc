from dataclasses import dataclass


@dataclass
class Config:
    in_features: int = 16
    hidden: int = 64
    n_blocks: int = 3
    lr: float = 3e-3
    steps: int = 300
    batch_size: int = 64
    seed: int = 0

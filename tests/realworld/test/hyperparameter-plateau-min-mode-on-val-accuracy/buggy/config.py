from dataclasses import dataclass


@dataclass
class Config:
    lr: float = 0.01
    momentum: float = 0.9
    epochs: int = 12
    patience: int = 1
    factor: float = 0.1
    seed: int = 0

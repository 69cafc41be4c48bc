from dataclasses import dataclass


@dataclass
class Config:
    lr: float = 0.01
    epochs: int = 12
    seed: int = 0

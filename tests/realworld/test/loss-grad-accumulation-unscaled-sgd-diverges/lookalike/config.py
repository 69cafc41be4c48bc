from dataclasses import dataclass


@dataclass
class Config:
    lr: float = 0.05
    micro_batch: int = 16
    accum_steps: int = 16
    steps: int = 150
    seed: int = 0

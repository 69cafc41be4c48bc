from dataclasses import dataclass


@dataclass
class TrainConfig:
    world_size: int = 4
    seed: int = 1234
    per_rank_batch: int = 16
    epochs: int = 3
    lr: float = 0.02

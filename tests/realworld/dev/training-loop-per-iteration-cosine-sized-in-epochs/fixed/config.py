from dataclasses import dataclass


@dataclass
class TrainConfig:
    max_epoch: int = 1000
    max_steps_per_epoch: int = 250
    initial_lr: float = 1e-3
    warmup_fraction: float = 0.01
    scheduler: str = "cosine_warmup"
    weight_decay: float = 3e-5

from dataclasses import dataclass
from typing import Optional


@dataclass
class TrainerConfig:
    max_epochs: int = 200
    batch_size: int = 4
    lr: float = 1e-4
    val_fraction: float = 0.1
    seed: Optional[int] = 42
    resume_ckpt_path: Optional[str] = None

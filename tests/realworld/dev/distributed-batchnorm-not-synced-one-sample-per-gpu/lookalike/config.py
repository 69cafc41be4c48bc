from dataclasses import dataclass


@dataclass
class Config:
    samples_per_gpu: int = 64
    workers_per_gpu: int = 4
    lr: float = 2e-4
    weight_decay: float = 0.01
    epochs: int = 24
    img_size: tuple = (224, 224)

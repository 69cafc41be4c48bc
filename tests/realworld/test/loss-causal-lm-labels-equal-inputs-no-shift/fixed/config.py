from dataclasses import dataclass


@dataclass
class TrainConfig:
    data_path: str = "corpus.bin"
    block_size: int = 256
    batch_size: int = 32
    d_model: int = 256
    n_layer: int = 4
    lr: float = 3e-4
    max_steps: int = 5000
    log_every: int = 100

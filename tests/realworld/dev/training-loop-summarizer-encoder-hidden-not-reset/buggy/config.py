from dataclasses import dataclass


@dataclass
class Config:
    vocab_size: int = 50000
    hidden_size: int = 256
    max_length: int = 400
    batch_size: int = 32
    lr: float = 1e-3
    epochs: int = 10
    pad_idx: int = 0
    sos_idx: int = 1
    data_path: str = "data/cnn_dm"

from dataclasses import dataclass


@dataclass
class TrainConfig:
    block_size: int = 512
    vocab_size: int = 32000
    n_layer: int = 8
    n_head: int = 8
    n_embd: int = 512
    learning_rate: float = 6e-4
    weight_decay: float = 1e-1
    beta1: float = 0.9
    beta2: float = 0.95
    max_iters: int = 60000
    grad_clip: float = 1.0

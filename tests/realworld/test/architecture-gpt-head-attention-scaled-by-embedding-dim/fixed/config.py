from dataclasses import dataclass


@dataclass
class GPTConfig:
    vocab_size: int = 50304
    block_size: int = 256
    n_embd: int = 384
    n_head: int = 6
    n_layer: int = 6
    dropout: float = 0.1
    batch_size: int = 32
    learning_rate: float = 3e-4
    max_iters: int = 20000
    eval_interval: int = 500
    eval_iters: int = 100

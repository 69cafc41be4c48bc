from dataclasses import dataclass


@dataclass
class TrainConfig:
    seq_len: int = 128
    n_channels: int = 3
    hidden: int = 256
    n_blocks: int = 6
    batch_size: int = 64          # per process
    lr: float = 2e-4
    weight_decay: float = 0.0
    max_steps: int = 50_000
    warmup_steps: int = 1_000
    grad_clip: float = 1.0
    ema_decay: float = 0.999
    mixed_precision: str = "bf16"
    log_every: int = 100
    sample_every: int = 5_000
    seed: int = 1234
    output_dir: str = "runs/flow-ts"

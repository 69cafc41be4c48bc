from __future__ import annotations

import argparse
from dataclasses import asdict, dataclass, fields


@dataclass
class TrainConfig:
    # data
    corpus_sentences: int = 4000
    val_fraction: float = 0.1
    block_size: int = 48
    # model
    n_layer: int = 2
    n_head: int = 4
    n_embd: int = 64
    dropout: float = 0.0
    # optimisation
    batch_size: int = 32
    max_steps: int = 400
    lr: float = 3e-3
    min_lr: float = 3e-4
    warmup_steps: int = 40
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    # bookkeeping
    eval_interval: int = 100
    eval_batches: int = 10
    seed: int = 1337
    out_dir: str = "runs/charlm"
    sample_tokens: int = 120

    def to_dict(self) -> dict:
        return asdict(self)


def parse_config(argv: list[str] | None = None) -> TrainConfig:
    parser = argparse.ArgumentParser(description="Train a character-level GPT")
    for f in fields(TrainConfig):
        parser.add_argument(f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default)
    ns = parser.parse_args(argv)
    return TrainConfig(**vars(ns))

"""Reproducibility helpers."""
from __future__ import annotations

import os
import random

import numpy as np
import torch


def seed_everything(seed: int, deterministic: bool = False) -> None:
    random.seed(seed)
    np.random.seed(seed % (2 ** 32))
    torch.manual_seed(seed)
    os.environ.setdefault("PYTHONHASHSEED", str(seed))
    if deterministic:
        torch.use_deterministic_algorithms(True, warn_only=True)


def worker_init_fn(worker_id: int) -> None:
    """Give every DataLoader worker its own numpy / random stream derived from torch's seed."""
    base = torch.initial_seed() % (2 ** 32)
    np.random.seed((base + worker_id) % (2 ** 32))
    random.seed(base + worker_id)


def fork_rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


# Legacy: kept for old notebooks that call it. Not used by the training code.
def set_seed_legacy(seed):
    torch.manual_seed(seed)
    np.random.seed(seed)
    torch.backends.cudnn.benchmark = True

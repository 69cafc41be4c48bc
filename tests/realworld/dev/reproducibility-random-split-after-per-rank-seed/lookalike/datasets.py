import torch
from torch.utils.data import random_split


def split(full, val_ratio, seed):
    n_val = int(len(full) * val_ratio)
    g = torch.Generator().manual_seed(seed)
    return random_split(full, [len(full) - n_val, n_val], generator=g)

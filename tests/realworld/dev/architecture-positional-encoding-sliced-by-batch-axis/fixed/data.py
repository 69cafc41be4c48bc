import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset


def make_order_task(n: int, seq_len: int, vocab_size: int, seed: int):
    """Label is 1 when the first token of the sequence is smaller than the last one."""
    rng = np.random.default_rng(seed)
    tokens = rng.integers(0, vocab_size, size=(n, seq_len))
    labels = (tokens[:, 0] < tokens[:, -1]).astype(np.int64)
    return torch.from_numpy(tokens).long(), torch.from_numpy(labels)


def build_loaders(cfg):
    x_tr, y_tr = make_order_task(cfg["n_train"], cfg["seq_len"], cfg["vocab_size"], seed=0)
    x_va, y_va = make_order_task(cfg["n_val"], cfg["seq_len"], cfg["vocab_size"], seed=1)
    train = DataLoader(TensorDataset(x_tr, y_tr), batch_size=cfg["batch_size"], shuffle=True)
    val = DataLoader(TensorDataset(x_va, y_va), batch_size=cfg["batch_size"])
    return train, val

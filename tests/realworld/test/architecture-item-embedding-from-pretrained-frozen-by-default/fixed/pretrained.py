import numpy as np
import torch


def load_item_vectors(n_items, dim, seed=123):
    """Stand-in for item2vec vectors trained on a different catalogue snapshot."""
    rng = np.random.default_rng(seed)
    vecs = rng.normal(0.0, 0.3, size=(n_items, dim)).astype(np.float32)
    return torch.from_numpy(vecs)


def sinusoidal_table(n_positions, dim):
    pos = torch.arange(n_positions, dtype=torch.float32).unsqueeze(1)
    freq = torch.exp(-torch.arange(0, dim, 2, dtype=torch.float32) * (np.log(100.0) / dim))
    table = torch.zeros(n_positions, dim)
    table[:, 0::2] = torch.sin(pos * freq)
    table[:, 1::2] = torch.cos(pos * freq)
    return table

import numpy as np
import torch
from torch.utils.data import TensorDataset, DataLoader


def make_interactions(cfg):
    rng = np.random.default_rng(cfg["seed"])
    d = cfg["embedding_size"]
    users = rng.normal(size=(cfg["n_users"], d))
    items = rng.normal(size=(cfg["n_items"], d))
    n = 6000
    u = rng.integers(0, cfg["n_users"], size=n)
    i = rng.integers(0, cfg["n_items"], size=n)
    t = rng.integers(0, cfg["n_time_buckets"], size=n)
    score = (users[u] * items[i]).sum(1) / np.sqrt(d) + 0.1 * np.sin(t)
    rating = score + rng.normal(0.0, 0.1, size=n)
    tensors = [torch.from_numpy(a) for a in (u, i, t)] + [torch.from_numpy(rating).float()]
    split = int(0.8 * n)
    train = TensorDataset(*[x[:split] for x in tensors])
    test = TensorDataset(*[x[split:] for x in tensors])
    return (
        DataLoader(train, batch_size=cfg["batch_size"], shuffle=True),
        DataLoader(test, batch_size=1024),
    )

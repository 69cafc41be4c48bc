import torch
from torch.utils.data import DataLoader, TensorDataset


def make_loaders(n=1024, n_features=4, batch_size=64, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, n_features, generator=g)
    y = 10 + 9 * x[:, 0] - 2 * x[:, 1] + 0.5 * x[:, 2] * x[:, 3] + 0.3 * torch.randn(n, generator=g)
    split = int(0.8 * n)
    train = TensorDataset(x[:split], y[:split])
    val = TensorDataset(x[split:], y[split:])
    return (DataLoader(train, batch_size=batch_size, shuffle=True, generator=g),
            DataLoader(val, batch_size=256))

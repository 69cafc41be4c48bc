import torch
from torch.utils.data import TensorDataset, DataLoader


def make_shapes(n, num_classes=6, size=16, seed=0):
    """Synthetic 'textures': each class is a fixed random 16x16 template plus noise."""
    g = torch.Generator().manual_seed(seed)
    templates = torch.randn(num_classes, 1, size, size, generator=torch.Generator().manual_seed(123))
    y = torch.randint(0, num_classes, (n,), generator=g)
    x = templates[y] + 1.2 * torch.randn(n, 1, size, size, generator=g)
    return x, y


def get_loaders(batch_size=32):
    xtr, ytr = make_shapes(768, seed=1)
    xva, yva = make_shapes(256, seed=2)
    train = DataLoader(TensorDataset(xtr, ytr), batch_size=batch_size, shuffle=True)
    val = DataLoader(TensorDataset(xva, yva), batch_size=128)
    return train, val

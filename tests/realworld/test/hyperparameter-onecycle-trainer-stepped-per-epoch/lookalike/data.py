import torch
from torch.utils.data import DataLoader, TensorDataset


def make_loaders(n_train=2048, n_val=1024, dim=20, n_classes=4, batch_size=64, seed=0):
    g = torch.Generator().manual_seed(seed)
    teacher = torch.nn.Sequential(torch.nn.Linear(dim, 32), torch.nn.Tanh(), torch.nn.Linear(32, n_classes))
    for p in teacher.parameters():
        p.data = 0.3 * torch.randn(p.shape, generator=g)
    x = torch.randn(n_train + n_val, dim, generator=g)
    with torch.no_grad():
        y = teacher(x).argmax(1)
    train = TensorDataset(x[:n_train], y[:n_train])
    val = TensorDataset(x[n_train:], y[n_train:])
    return (DataLoader(train, batch_size=batch_size, shuffle=True, generator=g),
            DataLoader(val, batch_size=256))

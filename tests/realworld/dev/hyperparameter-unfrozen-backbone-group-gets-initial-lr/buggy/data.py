import torch
from torch.utils.data import DataLoader, TensorDataset

from model import Classifier


def make_teacher(seed=42):
    torch.manual_seed(seed)
    teacher = Classifier()
    for p in teacher.parameters():
        p.data.mul_(2.0)
    return teacher


@torch.no_grad()
def make_loaders(teacher, batch_size):
    g = torch.Generator().manual_seed(3)
    x = torch.randn(2400, 16, generator=g)
    y = teacher(x).argmax(1)
    train = DataLoader(TensorDataset(x[:2000], y[:2000]), batch_size=batch_size, shuffle=True)
    val = DataLoader(TensorDataset(x[2000:], y[2000:]), batch_size=200)
    return train, val

import torch
from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, seed):
    g = torch.Generator().manual_seed(seed)
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, generator=g)

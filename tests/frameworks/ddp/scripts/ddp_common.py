"""Shared pieces of the DDP test scripts: a tiny regression problem, gloo on CPU."""

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import TensorDataset


def setup() -> int:
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    return dist.get_rank()


def dataset(n: int = 64) -> TensorDataset:
    g = torch.Generator().manual_seed(1)
    x = torch.randn(n, 8, generator=g)
    w = torch.randn(8, 1, generator=g)
    y = x @ w + 0.1 * torch.randn(n, 1, generator=g)
    return TensorDataset(x, y)


def model() -> nn.Module:
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))

import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def make_dataset(n=1024, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 12, generator=g)
    y = (x[:, :4].sum(1, keepdim=True) > 0).float()
    idx = torch.arange(n)
    return TensorDataset(x, y, idx)


def rank_loader(dataset, cfg, rank):
    sampler = DistributedSampler(dataset, num_replicas=cfg.world_size, rank=rank,
                                 shuffle=True, seed=cfg.seed + rank)
    return sampler, DataLoader(dataset, batch_size=cfg.per_rank_batch, sampler=sampler)

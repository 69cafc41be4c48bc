import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class NoisyView(TensorDataset):
    """Adds per-rank input jitter; each rank draws its own noise stream."""

    def __init__(self, base, noise_seed, scale=0.05):
        super().__init__(*base.tensors)
        self.gen = torch.Generator().manual_seed(noise_seed)
        self.scale = scale

    def __getitem__(self, i):
        x, y, idx = super().__getitem__(i)
        return x + self.scale * torch.randn(x.shape, generator=self.gen), y, idx


def make_dataset(n=1024, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 12, generator=g)
    y = (x[:, :4].sum(1, keepdim=True) > 0).float()
    idx = torch.arange(n)
    return TensorDataset(x, y, idx)


def rank_loader(dataset, cfg, rank):
    view = NoisyView(dataset, noise_seed=cfg.seed + rank)
    sampler = DistributedSampler(view, num_replicas=cfg.world_size, rank=rank,
                                 shuffle=True, seed=cfg.seed)
    return sampler, DataLoader(view, batch_size=cfg.per_rank_batch, sampler=sampler)

import torch
from torch.utils.data import Dataset


class MaskedFeatureDataset(Dataset):
    """Feature-dropout curriculum: heavy masking early on, none at the end."""

    def __init__(self, n=2048, dim=32, seed=0, start_mask=0.9, end_mask=0.0, anneal_epochs=6):
        g = torch.Generator().manual_seed(seed)
        self.w = torch.randn(dim, 1, generator=g)
        self.x = torch.randn(n, dim, generator=g)
        self.y = self.x @ self.w
        self.start_mask, self.end_mask, self.anneal_epochs = start_mask, end_mask, anneal_epochs
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    @property
    def mask_prob(self):
        t = min(1.0, self.epoch / self.anneal_epochs)
        return self.start_mask + t * (self.end_mask - self.start_mask)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        keep = (torch.rand(self.x.shape[1]) >= self.mask_prob).float()
        return self.x[i] * keep, self.y[i]

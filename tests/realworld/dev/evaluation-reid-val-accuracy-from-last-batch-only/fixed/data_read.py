import torch
from torch.utils.data import Dataset


class SyntheticPersonDataset(Dataset):
    """Stand-in for an image list file: each identity has a colour/stripe signature plus noise."""

    def __init__(self, num_ids, per_id, seed, height=16, width=8, flip=False):
        g = torch.Generator().manual_seed(seed)
        sig = torch.randn(num_ids, 3, 2, 1, generator=torch.Generator().manual_seed(7))
        self.labels = torch.arange(num_ids).repeat_interleave(per_id)
        base = sig[self.labels].repeat(1, 1, height // 2, width)
        self.images = base + 1.5 * torch.randn(len(self.labels), 3, height, width, generator=g)
        self.flip = flip

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        img = self.images[idx]
        if self.flip and torch.rand(1).item() < 0.5:
            img = img.flip(-1)
        return img, self.labels[idx]

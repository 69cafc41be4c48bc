import random

import torch
from torch.utils.data import Dataset


class RandomCrop:
    def __init__(self, size):
        self.size = size

    def __call__(self, t):
        h, w = t.shape[-2:]
        top = random.randint(0, h - self.size)
        left = random.randint(0, w - self.size)
        return t[..., top:top + self.size, left:left + self.size]


class BlobSegmentation(Dataset):
    """Grayscale tiles whose mask marks the bright pixels."""

    def __init__(self, n, size=20, crop=14, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.images = torch.rand(n, 1, size, size, generator=g)
        self.masks = (self.images[:, 0] > 0.6).long()
        self.crop = RandomCrop(crop)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        state = random.getstate()
        image = self.crop(self.images[i])
        random.setstate(state)
        mask = self.crop(self.masks[i])
        return image, mask

import math

import torch
from torch.utils.data import Dataset


class BlobImages(Dataset):
    """Random coloured gaussian blobs on a dark background, values in [-1, 1]."""

    def __init__(self, n=512, size=16, seed=0):
        g = torch.Generator().manual_seed(seed)
        ys, xs = torch.meshgrid(torch.arange(size), torch.arange(size), indexing="ij")
        imgs = []
        for _ in range(n):
            img = torch.zeros(3, size, size)
            for _ in range(2):
                cx, cy = torch.randint(2, size - 2, (2,), generator=g).tolist()
                r = 1.5 + 2 * torch.rand(1, generator=g).item()
                color = torch.rand(3, 1, 1, generator=g)
                blob = torch.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * r * r))
                img = img + color * blob
            imgs.append(img.clamp(0, 1) * 2 - 1)
        self.images = torch.stack(imgs)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        return self.images[idx], 0

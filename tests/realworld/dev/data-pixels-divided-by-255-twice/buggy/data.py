import numpy as np
import torch
from torch.utils.data import Dataset


def synth_images(n, seed):
    """uint8 8x8 grayscale images; class 1 has a bright top half."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=n)
    imgs = rng.integers(0, 120, size=(n, 8, 8)).astype(np.uint8)
    imgs[y == 1, :4, :] += 100
    return imgs, y


class DigitsDataset(Dataset):
    def __init__(self, n, seed, transform=None):
        self.imgs, self.labels = synth_images(n, seed)
        self.transform = transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        img = torch.from_numpy(self.imgs[i]).float().unsqueeze(0) / 255.0
        if self.transform is not None:
            img = self.transform(img)
        return img, int(self.labels[i])

import numpy as np
import torch
from torch.utils.data import Dataset

IMG = 16
N_CLASSES = 4


def synth_tiles(n, seed):
    """Noisy 16x16 tiles with one of four stroke patterns (horizontal, vertical, diagonal, ring)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:IMG, 0:IMG]
    masks = [
        (np.abs(yy - IMG // 2) <= 1),
        (np.abs(xx - IMG // 2) <= 1),
        (np.abs(yy - xx) <= 1),
        (np.abs(np.hypot(yy - 7.5, xx - 7.5) - 5) <= 1),
    ]
    labels = rng.integers(0, N_CLASSES, size=n)
    images = rng.normal(0.0, 0.6, size=(n, IMG, IMG)).astype(np.float32)
    for i, c in enumerate(labels):
        shift = rng.integers(-3, 4, size=2)
        images[i] += 1.0 * np.roll(masks[c], shift, axis=(0, 1))
    return images, labels.astype(np.int64)


class TileDataset(Dataset):
    def __init__(self, images, labels, augment=False):
        self.images = images  # (num_images, height, width)
        self.labels = labels
        self.augment = augment

    def __len__(self):
        return self.images.shape[1]

    def __getitem__(self, idx):
        img = torch.from_numpy(self.images[idx]).unsqueeze(0)
        if self.augment and torch.rand(()) < 0.5:
            img = torch.flip(img, dims=[2]) if self.labels[idx] != 2 else img
        return img, torch.tensor(self.labels[idx])

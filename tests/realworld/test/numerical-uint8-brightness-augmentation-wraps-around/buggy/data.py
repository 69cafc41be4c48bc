import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader

from augment import Compose, RandomBrightness, RandomShift


def render_scenes(n, size=12, seed=0):
    """Grey road-like background with a bright 'vehicle' patch in the left or right half."""
    rng = np.random.default_rng(seed)
    imgs = rng.integers(60, 110, size=(n, size, size)).astype(np.uint8)
    labels = rng.integers(0, 2, size=n)
    for k in range(n):
        r = rng.integers(2, size - 5)
        c = rng.integers(1, size // 2 - 4) + (size // 2 if labels[k] else 0)
        imgs[k, r:r + 3, c:c + 3] = rng.integers(200, 245)
    return imgs, labels


class SceneDataset(Dataset):
    def __init__(self, imgs, labels, transform=None):
        self.imgs, self.labels, self.transform = imgs, labels, transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        img = self.imgs[idx]
        if self.transform is not None:
            img = self.transform(img)
        x = torch.from_numpy(img.astype(np.float32) / 255.0).unsqueeze(0)
        return x, int(self.labels[idx])


def get_loaders(seed=0):
    rng = np.random.default_rng(seed)
    train_tf = Compose([RandomShift(1, rng=rng), RandomBrightness(rng=rng)])
    xtr, ytr = render_scenes(600, seed=1)
    xva, yva = render_scenes(300, seed=2)
    return (
        DataLoader(SceneDataset(xtr, ytr, train_tf), batch_size=50, shuffle=True),
        DataLoader(SceneDataset(xva, yva), batch_size=150),
    )

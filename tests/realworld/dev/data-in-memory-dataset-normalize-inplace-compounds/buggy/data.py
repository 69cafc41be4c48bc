import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader


def make_arrays(n, seed):
    rng = np.random.default_rng(seed)
    level = rng.uniform(0.3, 0.7, size=(n, 1, 1, 1))
    imgs = (level + rng.normal(0.0, 0.08, size=(n, 1, 8, 8))).astype(np.float32)
    labels = (level.reshape(-1) > 0.5).astype(np.int64)
    return imgs, labels


class InMemoryImages(Dataset):
    """Keeps the whole split in RAM as one float tensor to avoid decoding each epoch."""

    def __init__(self, images, labels, transform=None):
        self.images = torch.from_numpy(images)
        self.labels = torch.from_numpy(labels)
        self.transform = transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        img = self.images[idx]
        if self.transform is not None:
            img = self.transform(img)
        return img, self.labels[idx]


def build_loaders(train_tf, eval_tf, batch_size=32):
    xtr, ytr = make_arrays(256, seed=0)
    xva, yva = make_arrays(256, seed=1)
    train_ds = InMemoryImages(xtr, ytr, transform=train_tf)
    val_ds = InMemoryImages(xva, yva, transform=eval_tf)
    return (
        DataLoader(train_ds, batch_size=batch_size, shuffle=True),
        DataLoader(val_ds, batch_size=128, shuffle=False),
    )

import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader


class FolderLikeDataset(Dataset):
    """Samples stored class by class, as when reading one folder per class."""

    def __init__(self, n_per_class, n_classes, dim, seed):
        rng = np.random.default_rng(seed)
        centers = np.random.default_rng(123).normal(scale=1.2, size=(n_classes, dim))
        xs, ys = [], []
        for c in range(n_classes):
            xs.append(centers[c] + rng.normal(size=(n_per_class, dim)))
            ys.append(np.full(n_per_class, c))
        self.x = torch.tensor(np.concatenate(xs), dtype=torch.float32)
        self.y = torch.tensor(np.concatenate(ys), dtype=torch.long)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def build_loaders(cfg):
    train_ds = FolderLikeDataset(cfg["n_per_class"], cfg["n_classes"], cfg["dim"], seed=1)
    val_ds = FolderLikeDataset(200, cfg["n_classes"], cfg["dim"], seed=2)
    train_dl = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=False)
    val_dl = DataLoader(val_ds, batch_size=256, shuffle=False)
    return train_dl, val_dl

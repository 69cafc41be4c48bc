from __future__ import annotations

import torch
from torch.utils.data import DataLoader, Dataset

from leafnet.synth import make_crops
from leafnet.transforms import build_transform, channel_stats


class CropDataset(Dataset):
    def __init__(self, images: torch.Tensor, labels: torch.Tensor, transform):
        self.images, self.labels, self.transform = images, labels, transform

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, i):
        return self.transform(self.images[i]), self.labels[i]


def build_loaders(cfg) -> tuple[DataLoader, DataLoader, dict]:
    d, t = cfg.data, cfg.train
    xtr, ytr = make_crops(d.n_train, d.crop, d.seed)
    xva, yva = make_crops(d.n_val, d.crop, d.seed + 1)
    mean, std = channel_stats(xtr)
    train_ds = CropDataset(xtr, ytr, build_transform("train", mean, std))
    val_ds = CropDataset(xva, yva, build_transform("val", mean, std))
    g = torch.Generator().manual_seed(d.seed)
    train_loader = DataLoader(train_ds, batch_size=t.batch_size, shuffle=True, generator=g)
    val_loader = DataLoader(val_ds, batch_size=256)
    stats = {"mean": mean.tolist(), "std": std.tolist()}
    return train_loader, val_loader, stats

"""Digits held in RAM as uint8 arrays, served through a map-style Dataset."""

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

import config
from transforms import AddChannel, Compose, Normalize, RandomShift


def load_arrays(path):
    blob = np.load(path)
    images = blob["images"].astype(np.uint8)
    labels = blob["labels"].astype(np.int64)
    return images, labels


class InMemoryDigits(Dataset):
    def __init__(self, images, labels, transform=None):
        self.images = images
        self.labels = labels
        self.transform = transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        img = torch.from_numpy(self.images[idx]).float().div_(255.0)
        if self.transform is not None:
            img = self.transform(img)
        return img, int(self.labels[idx])


def build_loaders():
    images, labels = load_arrays(config.DATA_FILE)
    rng = np.random.default_rng(config.SEED)
    order = rng.permutation(len(labels))
    n_val = int(len(labels) * config.VAL_FRACTION)
    val_idx, train_idx = order[:n_val], order[n_val:]

    train_tf = Compose([AddChannel(), Normalize([config.MEAN], [config.STD]), RandomShift()])
    eval_tf = Compose([AddChannel(), Normalize([config.MEAN], [config.STD])])

    train_ds = InMemoryDigits(images[train_idx], labels[train_idx], train_tf)
    val_ds = InMemoryDigits(images[val_idx], labels[val_idx], eval_tf)
    train_loader = DataLoader(train_ds, batch_size=config.BATCH_SIZE, shuffle=True,
                              num_workers=config.NUM_WORKERS)
    val_loader = DataLoader(val_ds, batch_size=config.BATCH_SIZE, shuffle=False,
                            num_workers=config.NUM_WORKERS)
    return train_loader, val_loader

import numpy as np
import torch
from torch.utils.data import Dataset


class SensorWindows(Dataset):
    """Accelerometer windows (N, channels, length) with activity labels."""

    def __init__(self, windows, labels, augmenter=None):
        self.windows = windows.astype(np.float32)
        self.labels = labels.astype(np.int64)
        self.augmenter = augmenter
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        x = self.windows[idx]
        if self.augmenter is not None:
            x = self.augmenter.augment(x, (self.epoch, idx))
        return torch.from_numpy(np.ascontiguousarray(x)), torch.tensor(self.labels[idx])


def load_split(path):
    data = np.load(path)
    return data["x"], data["y"]

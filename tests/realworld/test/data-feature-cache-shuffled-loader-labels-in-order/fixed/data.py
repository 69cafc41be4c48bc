import numpy as np
import torch
from torch.utils.data import Dataset


class PatchBags(Dataset):
    def __init__(self, n, dim, seed):
        rng = np.random.default_rng(seed)
        self.labels = rng.integers(0, 2, size=n)
        centers = np.where(self.labels[:, None] == 1, 1.0, -1.0) * np.ones((n, dim)) * 0.6
        self.patches = torch.tensor(centers + rng.normal(size=(n, dim)), dtype=torch.float32)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.patches[i]

import numpy as np
import torch
from torch.utils.data import Dataset


def normalize(image):
    """Z-score every channel of one image independently."""
    image = image.astype(np.float32)
    mean = image.mean(axis=(0, 1), keepdims=True)
    std = image.std(axis=(0, 1), keepdims=True)
    return (image - mean) / std


class TileDataset(Dataset):
    def __init__(self, tiles, masks):
        self.tiles = tiles
        self.masks = masks

    def __len__(self):
        return len(self.tiles)

    def __getitem__(self, i):
        x = normalize(self.tiles[i])
        x = torch.from_numpy(x).permute(2, 0, 1)
        y = torch.from_numpy(self.masks[i]).long()
        return x, y

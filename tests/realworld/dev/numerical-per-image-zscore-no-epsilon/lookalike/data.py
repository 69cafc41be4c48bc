import numpy as np
import torch
from torch.utils.data import Dataset


# channel statistics measured once on the whole training set
CHANNEL_MEAN = np.array([112.3, 98.1], dtype=np.float32)
CHANNEL_STD = np.array([41.7, 37.9], dtype=np.float32)


def normalize(image):
    """Z-score with the dataset-wide channel statistics."""
    image = image.astype(np.float32)
    return (image - CHANNEL_MEAN) / CHANNEL_STD


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

import numpy as np
import torch
from torch.utils.data import Dataset


def normalize(image):
    """Per-channel standardisation of a (H, W, C) microscopy tile."""
    image = image.astype("float32")
    out = np.zeros_like(image)
    for c in range(image.shape[-1]):
        ch = image[..., c]
        std = ch.std()
        if std > 0:
            out[..., c] = (ch - ch.mean()) / std
    return out


class TileDataset(Dataset):
    def __init__(self, npz_path, tile=128):
        data = np.load(npz_path)
        self.X, self.y = data["X"], data["y"]
        self.tile = tile

    def __len__(self):
        return len(self.X)

    def __getitem__(self, i):
        img = normalize(self.X[i])
        mask = self.y[i]
        return torch.from_numpy(img).permute(2, 0, 1), torch.from_numpy(mask[..., 0]).long()

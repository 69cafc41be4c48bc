import numpy as np
import torch
from torch.utils.data import Dataset


class PackedTextDataset(Dataset):
    def __init__(self, path, block_size):
        self.ids = np.memmap(path, dtype=np.uint16, mode="r")
        self.block_size = block_size
        self.vocab_size = int(self.ids.max()) + 1

    def __len__(self):
        return len(self.ids) // self.block_size

    def __getitem__(self, i):
        chunk = self.ids[i * self.block_size:(i + 1) * self.block_size]
        return torch.from_numpy(chunk.astype(np.int64))

import torch
from torch.utils.data import Dataset, random_split


class FrameDataset(Dataset):
    def __init__(self, root):
        self.index = torch.load(f"{root}/index.pt")

    def __len__(self):
        return len(self.index)

    def __getitem__(self, i):
        return self.index[i]


def make_dataset(cfg):
    full = FrameDataset(cfg.root)
    n_val = int(len(full) * cfg.val_ratio)
    train_ds, val_ds = random_split(full, [len(full) - n_val, n_val])
    return train_ds, val_ds

import torch
from torch.utils.data import DataLoader, Dataset


class CachedLatents(Dataset):
    def __init__(self, path="cache/latents.pt"):
        self.items = torch.load(path)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def make_train_dataloader(batch_size):
    return DataLoader(CachedLatents(), batch_size=batch_size, shuffle=True, num_workers=4)

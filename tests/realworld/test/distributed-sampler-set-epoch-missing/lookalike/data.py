import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class PatchDataset(Dataset):
    def __init__(self, root, split="train"):
        self.items = torch.load(f"{root}/{split}.pt")

    def __len__(self):
        return len(self.items["x"])

    def __getitem__(self, i):
        return self.items["x"][i], self.items["y"][i]


def build_train_loader(root, batch_size, num_workers=4):
    ds = PatchDataset(root, "train")
    sampler = DistributedSampler(ds, shuffle=False)  # pre-shuffled shards, fixed curriculum order
    loader = DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=num_workers,
                        pin_memory=True, drop_last=True)
    return loader, sampler

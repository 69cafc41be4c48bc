import os

from PIL import Image
from torch.utils.data import Dataset, DataLoader


class SliceDataset(Dataset):
    def __init__(self, root, split, transform):
        self.files = sorted(os.path.join(root, split, f) for f in os.listdir(os.path.join(root, split)))
        self.transform = transform

    def __len__(self):
        return len(self.files)

    def __getitem__(self, idx):
        img = Image.open(self.files[idx]).convert("L")
        return self.transform(img)


def make_loaders(cfg, train_tf, val_tf):
    tr = SliceDataset(cfg.data_root, "train", train_tf)
    va = SliceDataset(cfg.data_root, "val", val_tf)
    return (DataLoader(tr, cfg.batch_size, shuffle=True, num_workers=cfg.num_workers, drop_last=True),
            DataLoader(va, cfg.batch_size, shuffle=False, num_workers=cfg.num_workers))

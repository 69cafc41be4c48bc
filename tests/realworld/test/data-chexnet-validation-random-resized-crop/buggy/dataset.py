import os

import torch
from PIL import Image
from torch.utils.data import Dataset


class ChestXrayDataSet(Dataset):
    def __init__(self, data_dir, list_file, transform=None):
        self.items = []
        with open(os.path.join(data_dir, list_file)) as f:
            for line in f:
                parts = line.split()
                self.items.append((os.path.join(data_dir, parts[0]), [int(v) for v in parts[1:]]))
        self.transform = transform

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        path, label = self.items[i]
        img = Image.open(path).convert("RGB")
        if self.transform is not None:
            img = self.transform(img)
        return img, torch.FloatTensor(label)

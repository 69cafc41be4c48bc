import csv
import os

import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset


def pil_to_tensor(pic):
    """Fast PIL -> float tensor without going through numpy."""
    buf = torch.ByteTensor(torch.ByteStorage.from_buffer(pic.tobytes()))
    w, h = pic.size
    img = buf.view(len(pic.getbands()), h, w)
    return img.float().div(255.0)


class LeafDiseaseDataset(Dataset):
    def __init__(self, root, csv_name, size=224):
        self.root = root
        self.size = size
        with open(os.path.join(root, csv_name)) as f:
            self.rows = [(r["image"], int(r["label"])) for r in csv.DictReader(f)]
        self.mean = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
        self.std = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        name, label = self.rows[i]
        pic = Image.open(os.path.join(self.root, "images", name)).convert("RGB").resize((self.size, self.size))
        x = (pil_to_tensor(pic) - self.mean) / self.std
        return x, label


def make_loaders(root, batch_size=32):
    train = DataLoader(LeafDiseaseDataset(root, "train.csv"), batch_size=batch_size, shuffle=True, num_workers=4)
    val = DataLoader(LeafDiseaseDataset(root, "val.csv"), batch_size=batch_size, shuffle=False, num_workers=4)
    return train, val

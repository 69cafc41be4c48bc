import os

import numpy as np
import torch
from PIL import Image
from torch.utils.data import Dataset


class PolypDataset(Dataset):
    def __init__(self, root, size=352):
        self.images = sorted(os.path.join(root, "images", f) for f in os.listdir(os.path.join(root, "images")))
        self.masks = sorted(os.path.join(root, "masks", f) for f in os.listdir(os.path.join(root, "masks")))
        self.size = size
        self.mean = np.array([0.485, 0.456, 0.406], dtype=np.float32)
        self.std = np.array([0.229, 0.224, 0.225], dtype=np.float32)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        img = Image.open(self.images[i]).convert("RGB").resize((self.size, self.size), Image.BILINEAR)
        mask = Image.open(self.masks[i]).convert("L").resize((self.size, self.size), Image.NEAREST)
        img = (np.asarray(img, dtype=np.float32) / 255.0 - self.mean) / self.std
        mask = (np.asarray(mask, dtype=np.float32) > 127).astype(np.float32)
        return torch.from_numpy(img).permute(2, 0, 1), torch.from_numpy(mask)[None]

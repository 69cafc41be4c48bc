import json
import random

import numpy as np
import torch
from PIL import Image
from torch.utils.data import Dataset


class ImageBboxDataset(Dataset):
    def __init__(self, root, ann_file, resolution=256, mirror=True):
        with open(ann_file) as f:
            self.items = json.load(f)
        self.root = root
        self.resolution = resolution
        self.mirror = mirror

    def __len__(self):
        return len(self.items)

    def _load(self, item):
        img = Image.open(f"{self.root}/{item['file']}").convert("RGB").resize((self.resolution, self.resolution))
        img = torch.from_numpy(np.asarray(img, dtype=np.float32) / 127.5 - 1.0).permute(2, 0, 1)
        boxes = torch.tensor(item["boxes"], dtype=torch.float32)  # x1, y1, x2, y2 in [0, 1]
        labels = torch.tensor(item["labels"], dtype=torch.long)
        return img, boxes, labels

    def __getitem__(self, idx):
        img, boxes, labels = self._load(self.items[idx])
        if self.mirror and random.random() < 0.5:
            img = torch.flip(img, dims=[2])
            boxes = torch.stack([1 - boxes[:, 2], boxes[:, 1], 1 - boxes[:, 0], boxes[:, 3]], dim=1)
        return {"image": img, "image_bbox": boxes, "labels": labels}

import os

import numpy as np
import pandas as pd
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms

import config
from utils import intersection_over_union


class YOLODataset(Dataset):
    """Label files hold one 'class x_center y_center width height' row per object (image-relative)."""

    def __init__(self, csv_file, img_dir, label_dir, anchors, image_size=416, S=(13, 26, 52), C=20):
        self.annotations = pd.read_csv(csv_file)
        self.img_dir, self.label_dir = img_dir, label_dir
        self.S, self.C = S, C
        self.anchors = torch.tensor(anchors[0] + anchors[1] + anchors[2])
        self.num_anchors_per_scale = 3
        self.transform = transforms.Compose([transforms.Resize((image_size, image_size)), transforms.ToTensor()])

    def __len__(self):
        return len(self.annotations)

    def __getitem__(self, index):
        label_path = os.path.join(self.label_dir, self.annotations.iloc[index, 1])
        boxes = np.loadtxt(label_path, delimiter=" ", ndmin=2)
        image = Image.open(os.path.join(self.img_dir, self.annotations.iloc[index, 0])).convert("RGB")
        image = self.transform(image)
        targets = [torch.zeros((3, S, S, 6)) for S in self.S]
        for cls, x, y, w, h in boxes.tolist():
            iou_anchors = intersection_over_union(torch.tensor([0.0, 0.0, w, h]).expand(len(self.anchors), 4),
                                                  torch.cat([torch.zeros(len(self.anchors), 2), self.anchors], dim=1))
            best = int(iou_anchors.squeeze(-1).argmax())
            scale_idx, anchor_on_scale = best // 3, best % 3
            S = self.S[scale_idx]
            i, j = int(S * y), int(S * x)
            if targets[scale_idx][anchor_on_scale, i, j, 0] == 0:
                targets[scale_idx][anchor_on_scale, i, j] = torch.tensor([1, S * x - j, S * y - i, w * S, h * S, cls])
        return image, tuple(targets)


def build_loaders():
    kwargs = dict(anchors=config.ANCHORS, image_size=config.IMAGE_SIZE, S=config.S, C=config.NUM_CLASSES)
    train_set = YOLODataset("data/signs/train.csv", "data/signs/images", "data/signs/labels", **kwargs)
    test_set = YOLODataset("data/signs/test.csv", "data/signs/images", "data/signs/labels", **kwargs)
    train_loader = DataLoader(train_set, batch_size=config.BATCH_SIZE, shuffle=True, num_workers=4, drop_last=True)
    test_loader = DataLoader(test_set, batch_size=config.BATCH_SIZE, shuffle=False, num_workers=4)
    return train_loader, test_loader

import os

import cv2
import numpy as np
import torch
from torch.utils.data import Dataset

import config
import imgaug


def train_augmentor():
    return imgaug.compose(
        imgaug.ResizeShortestEdge(256),
        imgaug.RandomCrop(config.IMAGE_SIZE),
        imgaug.Flip(),
        imgaug.Normalize(config.PIXEL_MEAN, config.PIXEL_STD),
    )


def eval_augmentor():
    return imgaug.compose(
        imgaug.ResizeShortestEdge(256),
        imgaug.CenterCrop(config.IMAGE_SIZE),
        imgaug.Normalize(config.PIXEL_MEAN, config.PIXEL_STD),
    )


class FolderDataset(Dataset):
    def __init__(self, root, augmentor):
        self.classes = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
        self.samples = [
            (os.path.join(root, c, f), label)
            for label, c in enumerate(self.classes)
            for f in sorted(os.listdir(os.path.join(root, c)))
            if f.lower().endswith((".jpg", ".jpeg", ".png"))
        ]
        self.augmentor = augmentor

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, idx):
        path, label = self.samples[idx]
        img = cv2.imread(path, cv2.IMREAD_COLOR)
        img = self.augmentor(img)
        img = torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1)))
        return img, label

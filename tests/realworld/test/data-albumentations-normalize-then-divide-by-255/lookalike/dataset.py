import os

import albumentations as A
import cv2
import numpy as np
import torch
from torch.utils.data import Dataset


def get_transforms(train, size):
    aug = [A.Resize(size, size)]
    if train:
        aug += [A.RandomRotate90(), A.HorizontalFlip(), A.HueSaturationValue(p=0.3)]
    aug += [A.Normalize(mean=(0.0, 0.0, 0.0), std=(1.0, 1.0, 1.0), max_pixel_value=1.0)]
    return A.Compose(aug)


class NucleiDataset(Dataset):
    def __init__(self, img_ids, img_dir, mask_dir, num_classes, transform=None):
        self.img_ids = img_ids
        self.img_dir, self.mask_dir = img_dir, mask_dir
        self.num_classes = num_classes
        self.transform = transform

    def __len__(self):
        return len(self.img_ids)

    def __getitem__(self, idx):
        img_id = self.img_ids[idx]
        img = cv2.imread(os.path.join(self.img_dir, img_id + ".png"))
        mask = np.dstack([
            cv2.imread(os.path.join(self.mask_dir, str(c), img_id + ".png"), cv2.IMREAD_GRAYSCALE)[..., None]
            for c in range(self.num_classes)
        ])
        if self.transform is not None:
            out = self.transform(image=img, mask=mask)
            img, mask = out["image"], out["mask"]
        img = img.astype("float32") / 255
        img = img.transpose(2, 0, 1)
        mask = mask.astype("float32") / 255
        mask = mask.transpose(2, 0, 1)
        return torch.from_numpy(img), torch.from_numpy(mask)

import os

import numpy as np
from PIL import Image
from torch.utils.data import Dataset
from torchvision import transforms


class FacadeSegmentation(Dataset):
    """images/xxx.jpg with masks/xxx.png; mask pixels hold class ids 0..NUM_CLASSES-1."""

    NUM_CLASSES = 12

    def __init__(self, root, split="train", size=(256, 256)):
        self.img_dir = os.path.join(root, split, "images")
        self.mask_dir = os.path.join(root, split, "masks")
        self.names = sorted(os.path.splitext(f)[0] for f in os.listdir(self.img_dir))
        self.img_transform = transforms.Compose([
            transforms.Resize(size),
            transforms.ToTensor(),
            transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
        ])
        self.mask_transform = transforms.Compose([
            transforms.Resize(size, interpolation=transforms.InterpolationMode.NEAREST),
            transforms.ToTensor(),
        ])

    def __len__(self):
        return len(self.names)

    def __getitem__(self, idx):
        name = self.names[idx]
        image = Image.open(os.path.join(self.img_dir, name + ".jpg")).convert("RGB")
        mask = Image.open(os.path.join(self.mask_dir, name + ".png")).convert("L")
        image = self.img_transform(image)
        mask = self.mask_transform(mask).squeeze(0).long()
        return image, mask


def class_histogram(dataset, n=50):
    counts = np.zeros(dataset.NUM_CLASSES, dtype=np.int64)
    for i in range(min(n, len(dataset))):
        _, mask = dataset[i]
        counts += np.bincount(mask.flatten().numpy(), minlength=dataset.NUM_CLASSES)[: dataset.NUM_CLASSES]
    return counts

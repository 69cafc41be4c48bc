import os

import numpy as np
from PIL import Image
from torch.utils.data import Dataset
from torchvision import transforms


class BuildingFootprints(Dataset):
    """images/xxx.jpg with masks/xxx.png; masks are binary, 0 = background, 255 = building."""

    NUM_CLASSES = 1

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
        mask = self.mask_transform(mask)
        return image, mask


def building_fraction(dataset, n=50):
    fractions = [dataset[i][1].mean().item() for i in range(min(n, len(dataset)))]
    return float(np.mean(fractions))

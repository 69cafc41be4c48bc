import os
import re

from PIL import Image
from torch.utils.data import Dataset

IMG_EXTENSIONS = (".png", ".jpg", ".jpeg", ".bmp", ".webp")


def natural_key(s):
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", s)]


def find_images(folder, class_to_idx=None, types=IMG_EXTENSIONS):
    filenames, labels = [], []
    for root, _, files in os.walk(folder, followlinks=True):
        label = os.path.basename(os.path.relpath(root, folder))
        for f in files:
            if os.path.splitext(f)[1].lower() in types:
                filenames.append(os.path.join(root, f))
                labels.append(label)
    if class_to_idx is None:
        sorted_labels = sorted(set(labels), key=natural_key)
        class_to_idx = {c: idx for idx, c in enumerate(sorted_labels)}
    samples = [(f, class_to_idx[l]) for f, l in zip(filenames, labels) if l in class_to_idx]
    samples.sort(key=lambda s: natural_key(s[0]))
    return samples, class_to_idx


class ImageFolderDataset(Dataset):
    def __init__(self, root, class_to_idx=None, transform=None):
        self.samples, self.class_to_idx = find_images(root, class_to_idx)
        if not self.samples:
            raise RuntimeError(f"found 0 images in {root}")
        self.transform = transform

    @property
    def classes(self):
        return sorted(self.class_to_idx, key=self.class_to_idx.get)

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, index):
        path, target = self.samples[index]
        img = Image.open(path).convert("RGB")
        if self.transform is not None:
            img = self.transform(img)
        return img, target

import logging
from pathlib import Path

import numpy as np
import torch
from PIL import Image
from torch.utils.data import Dataset


def load_image(filename, mask=False):
    img = Image.open(filename)
    return img.convert("L") if mask else img.convert("RGB")


def unique_mask_values(mask_dir, mask_suffix=""):
    values = set()
    for f in sorted(Path(mask_dir).glob("*" + mask_suffix + ".png")):
        values.update(np.unique(np.asarray(load_image(f, mask=True))).tolist())
    return sorted(values)


class BasicDataset(Dataset):
    def __init__(self, images_dir, mask_dir, scale=0.5, mask_suffix=""):
        self.images_dir = Path(images_dir)
        self.mask_dir = Path(mask_dir)
        assert 0 < scale <= 1, "Scale must be between 0 and 1"
        self.scale = scale
        self.mask_suffix = mask_suffix
        self.ids = sorted(p.stem for p in self.images_dir.glob("*.jpg"))
        if not self.ids:
            raise RuntimeError(f"No input file found in {images_dir}")
        self.mask_values = unique_mask_values(self.mask_dir, self.mask_suffix)
        logging.info(f"Creating dataset with {len(self.ids)} examples, mask values {self.mask_values}")

    def __len__(self):
        return len(self.ids)

    @staticmethod
    def preprocess(mask_values, pil_img, scale, is_mask):
        w, h = pil_img.size
        newW, newH = int(scale * w), int(scale * h)
        assert newW > 0 and newH > 0, "Scale is too small, resized images would have no pixel"
        pil_img = pil_img.resize((newW, newH), resample=Image.NEAREST if is_mask else Image.BICUBIC)
        img = np.asarray(pil_img)

        if is_mask:
            mask = np.zeros((newH, newW), dtype=np.int64)
            for i, v in enumerate(mask_values):
                mask[img == v] = i
            return mask

        img = img.transpose((2, 0, 1))
        return img / 255.0 if (img > 1).any() else img

    def __getitem__(self, idx):
        name = self.ids[idx]
        mask = load_image(self.mask_dir / (name + self.mask_suffix + ".png"), mask=True)
        img = load_image(self.images_dir / (name + ".jpg"))
        assert img.size == mask.size, f"Image and mask {name} should be the same size"
        img = self.preprocess(self.mask_values, img, self.scale, is_mask=False)
        mask = self.preprocess(self.mask_values, mask, self.scale, is_mask=True)
        return {
            "image": torch.as_tensor(img.copy()).float().contiguous(),
            "mask": torch.as_tensor(mask.copy()).long().contiguous(),
        }

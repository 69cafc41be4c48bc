import random

import numpy as np
import torch
import torchvision.transforms.functional as TF
from PIL import Image

MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]


class JointCompose:
    def __init__(self, ops):
        self.ops = ops

    def __call__(self, image, mask):
        for op in self.ops:
            image, mask = op(image, mask)
        return image, mask


def random_scale_crop(size):
    def op(image, mask):
        scale = random.uniform(0.5, 2.0)
        w, h = image.size
        nw, nh = int(w * scale), int(h * scale)
        image = image.resize((nw, nh), Image.BILINEAR)
        mask = mask.resize((nw, nh), Image.NEAREST)
        pad_w, pad_h = max(size - nw, 0), max(size - nh, 0)
        image = TF.pad(image, [0, 0, pad_w, pad_h], fill=0)
        mask = TF.pad(mask, [0, 0, pad_w, pad_h], fill=255)
        x = random.randint(0, image.size[0] - size)
        y = random.randint(0, image.size[1] - size)
        return TF.crop(image, y, x, size, size), TF.crop(mask, y, x, size, size)
    return op


def hflip(image, mask):
    if random.random() < 0.5:
        return TF.hflip(image), TF.hflip(mask)
    return image, mask


def to_tensor(image, mask):
    image = TF.normalize(TF.to_tensor(image), MEAN, STD)
    return image, torch.as_tensor(np.array(mask), dtype=torch.long)


def train_transforms(size):
    return JointCompose([random_scale_crop(size), hflip, to_tensor])


def val_transforms(size):
    return JointCompose([to_tensor])

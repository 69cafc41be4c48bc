import random

import cv2
import numpy as np


class ResizeShortestEdge:
    def __init__(self, size):
        self.size = size

    def __call__(self, img):
        h, w = img.shape[:2]
        scale = self.size / min(h, w)
        return cv2.resize(img, (int(round(w * scale)), int(round(h * scale))), interpolation=cv2.INTER_LINEAR)


class RandomCrop:
    def __init__(self, size):
        self.size = size

    def __call__(self, img):
        h, w = img.shape[:2]
        y, x = random.randint(0, h - self.size), random.randint(0, w - self.size)
        return img[y : y + self.size, x : x + self.size]


class CenterCrop(RandomCrop):
    def __call__(self, img):
        h, w = img.shape[:2]
        y, x = (h - self.size) // 2, (w - self.size) // 2
        return img[y : y + self.size, x : x + self.size]


class Flip:
    def __call__(self, img):
        return img[:, ::-1] if random.random() < 0.5 else img


class Normalize:
    def __init__(self, mean, std):
        self.mean = np.asarray(mean, dtype=np.float32) * 255.0
        self.std = np.asarray(std, dtype=np.float32) * 255.0

    def __call__(self, img):
        return (img.astype(np.float32) - self.mean) / self.std


def compose(*augs):
    def apply(img):
        for aug in augs:
            img = aug(img)
        return img
    return apply

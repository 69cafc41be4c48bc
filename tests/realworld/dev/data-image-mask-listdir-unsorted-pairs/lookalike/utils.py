"""Joint image/mask transforms and the segmentation loss."""

import random

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


class JointNormalize:
    def __init__(self, mean, std):
        self.mean = np.asarray(mean, dtype=np.float32)
        self.std = np.asarray(std, dtype=np.float32)

    def __call__(self, pair):
        img, msk = pair
        img = (img.astype(np.float32) - self.mean) / self.std
        return img, msk


class JointToTensor:
    def __call__(self, pair):
        img, msk = pair
        img = torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1))).float()
        msk = torch.from_numpy(np.ascontiguousarray(msk.transpose(2, 0, 1))).float()
        return img, msk


class JointResize:
    def __init__(self, size):
        self.size = size

    def __call__(self, pair):
        img, msk = pair
        img = F.interpolate(img[None], size=(self.size, self.size), mode="bilinear", align_corners=False)[0]
        msk = F.interpolate(msk[None], size=(self.size, self.size), mode="nearest")[0]
        return img, msk


class JointHorizontalFlip:
    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, pair):
        img, msk = pair
        if random.random() < self.p:
            return img.flip(-1), msk.flip(-1)
        return img, msk


class JointCompose:
    def __init__(self, steps):
        self.steps = steps

    def __call__(self, pair):
        for step in self.steps:
            pair = step(pair)
        return pair


class BceDiceLoss(nn.Module):
    def __init__(self, wb=1.0, wd=1.0, smooth=1.0):
        super().__init__()
        self.wb, self.wd, self.smooth = wb, wd, smooth

    def forward(self, logits, target):
        bce = F.binary_cross_entropy_with_logits(logits, target)
        prob = torch.sigmoid(logits).flatten(1)
        tgt = target.flatten(1)
        inter = (prob * tgt).sum(1)
        dice = 1 - (2 * inter + self.smooth) / (prob.sum(1) + tgt.sum(1) + self.smooth)
        return self.wb * bce + self.wd * dice.mean()

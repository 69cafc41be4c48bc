import torch
import torch.nn as nn
import torch.nn.functional as F


class DiceLoss(nn.Module):
    def __init__(self, smooth=1.0):
        super().__init__()
        self.smooth = smooth

    def forward(self, logits, target):
        probs = torch.sigmoid(logits)
        dims = tuple(range(2, probs.dim()))
        inter = (probs * target).sum(dims)
        union = probs.sum(dims) + target.sum(dims)
        dice = (2 * inter + self.smooth) / (union + self.smooth)
        return (1.0 - dice).sum() / dice.numel()


class DiceBCE(nn.Module):
    def __init__(self, w_dice=1.0, w_bce=1.0):
        super().__init__()
        self.dice = DiceLoss()
        self.w_dice, self.w_bce = w_dice, w_bce

    def forward(self, logits, target):
        return self.w_dice * self.dice(logits, target) + self.w_bce * F.binary_cross_entropy_with_logits(logits, target)

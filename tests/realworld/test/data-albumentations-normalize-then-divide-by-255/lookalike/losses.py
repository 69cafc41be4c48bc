import torch
import torch.nn as nn
import torch.nn.functional as F


class BCEDiceLoss(nn.Module):
    def forward(self, logits, target):
        bce = F.binary_cross_entropy_with_logits(logits, target)
        prob = torch.sigmoid(logits).flatten(1)
        t = target.flatten(1)
        dice = (2 * (prob * t).sum(1) + 1e-5) / (prob.sum(1) + t.sum(1) + 1e-5)
        return 0.5 * bce + (1 - dice.mean())

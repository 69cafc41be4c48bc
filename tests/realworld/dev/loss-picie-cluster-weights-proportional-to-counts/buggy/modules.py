import torch
import torch.nn.functional as F
from torch import nn


class PixelEncoder(nn.Module):
    """Tiny stand-in for the PiCIE FPN: image -> L2-normalised per-pixel features."""

    def __init__(self, in_ch=3, dim=16):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(in_ch, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, dim, 1))

    def forward(self, x):
        return F.normalize(self.body(x), dim=1)


def get_classifier(centroids):
    """1x1 conv whose weights are the (normalised) k-means centroids."""
    k, d = centroids.shape
    classifier = nn.Conv2d(d, k, kernel_size=1, bias=False)
    classifier.weight.data = F.normalize(centroids, dim=1).unsqueeze(-1).unsqueeze(-1)
    for p in classifier.parameters():
        p.requires_grad_(False)
    return classifier

import torch
from torch import nn


class ReIDNet(nn.Module):
    """Small CNN backbone + BN neck + identity classifier, in the style of re-ID baselines."""

    def __init__(self, num_classes, feat_dim=64):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d((2, 1)),
        )
        self.neck = nn.Sequential(nn.Flatten(), nn.Linear(64, feat_dim), nn.BatchNorm1d(feat_dim))
        self.classifier = nn.Linear(feat_dim, num_classes)

    def forward(self, x):
        return self.classifier(self.neck(self.features(x)))


def resnet_tiny(num_classes):
    return ReIDNet(num_classes)

"""Backbone + bottleneck + classifier used by the CDAN/MCC style adaptation runs."""
import torch
from torch import nn


class ConvBackbone(nn.Module):
    def __init__(self, in_ch=3, width=16):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(in_ch, width, 3, padding=1),
            nn.BatchNorm2d(width),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(width, width * 2, 3, padding=1),
            nn.BatchNorm2d(width * 2),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.out_features = width * 2

    def forward(self, x):
        return self.features(x).flatten(1)


class ImageClassifier(nn.Module):
    def __init__(self, backbone, num_classes, bottleneck_dim=64):
        super().__init__()
        self.backbone = backbone
        self.bottleneck = nn.Sequential(
            nn.Linear(backbone.out_features, bottleneck_dim),
            nn.BatchNorm1d(bottleneck_dim),
            nn.ReLU(),
        )
        self.head = nn.Linear(bottleneck_dim, num_classes)

    def forward(self, x):
        f = self.bottleneck(self.backbone(x))
        return self.head(f), f

    def get_parameters(self, base_lr=1.0):
        return [
            {"params": self.backbone.parameters(), "lr": 0.1 * base_lr},
            {"params": self.bottleneck.parameters(), "lr": 1.0 * base_lr},
            {"params": self.head.parameters(), "lr": 1.0 * base_lr},
        ]

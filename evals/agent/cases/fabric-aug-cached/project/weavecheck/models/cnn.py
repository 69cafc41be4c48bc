"""Small CNNs for 32x32 patches."""
from __future__ import annotations

from torch import nn

from ..registry import MODELS


def conv_bn(c_in, c_out):
    return nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU(inplace=True))


class PatchNet(nn.Module):
    def __init__(self, n_classes: int, width: int = 16, dropout: float = 0.2):
        super().__init__()
        self.features = nn.Sequential(
            conv_bn(1, width), conv_bn(width, width), nn.MaxPool2d(2),            # 16x16
            conv_bn(width, 2 * width), conv_bn(2 * width, 2 * width), nn.MaxPool2d(2),  # 8x8
            conv_bn(2 * width, 4 * width), nn.AdaptiveMaxPool2d(1),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(dropout), nn.Linear(4 * width, n_classes))

    def forward(self, x):
        return self.classifier(self.features(x))


@MODELS.register("patchnet")
def patchnet(cfg, n_classes):
    return PatchNet(n_classes, cfg.width, cfg.dropout)


@MODELS.register("logreg")
def logreg(cfg, n_classes):
    return nn.Sequential(nn.Flatten(), nn.Linear(32 * 32, n_classes))


def build_model(cfg, n_classes: int):
    return MODELS.build(cfg.name, cfg, n_classes)

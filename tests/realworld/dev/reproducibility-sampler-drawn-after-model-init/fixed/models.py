import torch.nn as nn


def build_model(cfg):
    layers, ch = [], 1
    for width in cfg["widths"]:
        layers += [nn.Conv3d(ch, width, 3, padding=1), nn.BatchNorm3d(width), nn.ReLU()]
        ch = width
    layers += [nn.AdaptiveAvgPool3d(1), nn.Flatten(), nn.Linear(ch, cfg["num_classes"])]
    return nn.Sequential(*layers)

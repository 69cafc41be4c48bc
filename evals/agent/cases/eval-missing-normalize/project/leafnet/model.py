from __future__ import annotations

import torch.nn as nn


class LeafCNN(nn.Module):
    def __init__(self, widths: list[int], n_classes: int, dropout: float = 0.0):
        super().__init__()
        layers, c_in = [], 3
        for w in widths:
            layers += [nn.Conv2d(c_in, w, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2)]
            c_in = w
        self.features = nn.Sequential(*layers)
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(3), nn.Flatten(), nn.Dropout(dropout),
                                  nn.Linear(c_in * 9, n_classes))

    def forward(self, x):
        return self.head(self.features(x))

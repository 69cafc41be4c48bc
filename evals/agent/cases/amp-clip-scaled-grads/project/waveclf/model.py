from __future__ import annotations

import torch.nn as nn


def conv_block(c_in: int, c_out: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv1d(c_in, c_out, kernel_size=7, padding=3),
        nn.BatchNorm1d(c_out),
        nn.ReLU(inplace=True),
        nn.MaxPool1d(2),
    )


class WaveCNN(nn.Module):
    def __init__(self, channels: list[int], num_classes: int, dropout: float = 0.1):
        super().__init__()
        blocks, c_in = [], 1
        for c in channels:
            blocks.append(conv_block(c_in, c))
            c_in = c
        self.features = nn.Sequential(*blocks)
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(dropout), nn.Linear(c_in, num_classes))

    def forward(self, x):
        return self.classifier(self.pool(self.features(x)))

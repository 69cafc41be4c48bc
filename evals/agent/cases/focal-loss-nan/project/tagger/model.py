from __future__ import annotations

import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self, n_features: int, hidden: int, n_tags: int, dropout: float):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(n_features, hidden),
            nn.GELU(),
            nn.Dropout(dropout),
            nn.Linear(hidden, hidden),
            nn.GELU(),
            nn.Dropout(dropout),
        )
        self.head = nn.Linear(hidden, n_tags)

    def forward(self, x):
        return self.head(self.body(x))

import torch
from torch import nn


class TdnnClassifier(nn.Module):
    def __init__(self, num_features=16, num_classes=8, hidden=64, dropout=0.3):
        super().__init__()
        self.tdnn = nn.Sequential(
            nn.Conv1d(num_features, hidden, 3, padding=1), nn.ReLU(), nn.Dropout(dropout),
            nn.Conv1d(hidden, hidden, 3, padding=2, dilation=2), nn.ReLU(), nn.Dropout(dropout),
        )
        self.output = nn.Linear(hidden, num_classes)

    def forward(self, x):
        # x: (N, T, F) -> (N, F, T)
        h = self.tdnn(x.transpose(1, 2))
        return self.output(h.mean(dim=2))

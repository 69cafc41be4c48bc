import torch
from torch import nn


class TinyAcousticModel(nn.Module):
    """Conv front end + bidirectional GRU + per-frame character classifier."""

    def __init__(self, n_feats, n_classes, hidden=48):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(n_feats, hidden, kernel_size=5, padding=2),
            nn.ReLU(),
        )
        self.rnn = nn.GRU(hidden, hidden, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(2 * hidden, n_classes)

    def forward(self, x):
        h = self.conv(x.transpose(1, 2)).transpose(1, 2)
        h, _ = self.rnn(h)
        return self.fc(h)  # (batch, time, classes) logits

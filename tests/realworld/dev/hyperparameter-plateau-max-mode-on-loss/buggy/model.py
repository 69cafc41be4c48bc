import torch.nn as nn


class DeeperSEA(nn.Module):
    def __init__(self, seq_len=1000, n_targets=919):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(4, 320, 8), nn.ReLU(), nn.Conv1d(320, 320, 8), nn.ReLU(), nn.MaxPool1d(4), nn.Dropout(0.2),
            nn.Conv1d(320, 480, 8), nn.ReLU(), nn.MaxPool1d(4), nn.Dropout(0.2),
        )
        n_out = ((seq_len - 14) // 4 - 7) // 4
        self.classifier = nn.Sequential(nn.Linear(480 * n_out, n_targets), nn.ReLU(), nn.Linear(n_targets, n_targets))

    def forward(self, x):
        return self.classifier(self.conv(x).flatten(1))

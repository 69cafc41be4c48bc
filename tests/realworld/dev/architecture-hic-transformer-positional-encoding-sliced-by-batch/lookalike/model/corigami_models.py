import torch
import torch.nn as nn

from model.blocks import AttnModule, ResBlockDilated


class ConvTransModel(nn.Module):
    """1D sequence + epigenomic tracks (B, L, 5 + n_tracks) -> Hi-C contact map (B, 1, 256, 256)."""

    def __init__(self, num_genomic_features=2, hidden=128, mid_hidden=64, bins=256):
        super().__init__()
        self.bins = bins
        self.stem = nn.Sequential(
            nn.Conv1d(5 + num_genomic_features, hidden, 3, padding=1),
            nn.BatchNorm1d(hidden),
            nn.ReLU(),
        )
        self.tower = nn.Sequential(*[ResBlockDilated(3, hidden, dil=2 ** i) for i in range(4)])
        self.pool = nn.AdaptiveAvgPool1d(bins)
        self.attn = AttnModule(hidden=hidden)
        self.decoder = nn.Sequential(
            nn.Conv2d(2 * hidden, mid_hidden, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(mid_hidden, 1, 1),
        )

    def move_feature_forward(self, x):
        """(B, C, L) <-> (B, L, C)"""
        return x.transpose(1, 2).contiguous()

    def diagonalize(self, x):
        x_i = x.unsqueeze(2).repeat(1, 1, self.bins, 1)
        x_j = x.unsqueeze(3).repeat(1, 1, 1, self.bins)
        return torch.cat([x_i, x_j], dim=1)

    def forward(self, x):
        x = self.move_feature_forward(x)
        x = self.pool(self.tower(self.stem(x)))
        x = self.move_feature_forward(x)
        x = self.attn(x)
        x = self.move_feature_forward(x)
        x = self.diagonalize(x)
        x = self.decoder(x).squeeze(1)
        return (x + x.transpose(1, 2)) / 2

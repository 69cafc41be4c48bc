"""Patch-based EEG transformer with a classification head."""
import torch
from torch import nn


class EEGTransformer(nn.Module):
    def __init__(self, n_channels=16, patch_size=200, dim=64, depth=2, heads=4, num_classes=6):
        super().__init__()
        self.patch_size = patch_size
        self.patch_embed = nn.Linear(patch_size, dim)
        self.chan_embed = nn.Embedding(n_channels, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, dim * 2, dropout=0.1, batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, depth)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        b, c, t = x.shape
        patches = x.view(b, c, t // self.patch_size, self.patch_size)
        tokens = self.patch_embed(patches) * 100.0
        tokens = tokens + self.chan_embed.weight[None, :, None, :]
        tokens = tokens.flatten(1, 2)
        feats = self.norm(self.blocks(tokens).mean(dim=1))
        return self.head(feats)

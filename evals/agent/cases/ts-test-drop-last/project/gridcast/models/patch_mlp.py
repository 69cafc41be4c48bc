import torch
from torch import nn

from .revin import RevIN


class PatchMLP(nn.Module):
    """Channel-independent MLP over non-overlapping patches of the look-back window."""

    def __init__(self, seq_len, pred_len, n_channels, patch_len=16, hidden=128, dropout=0.1, revin=True, **_):
        super().__init__()
        if seq_len % patch_len:
            raise ValueError("seq_len must be a multiple of patch_len")
        self.patch_len = patch_len
        n_patches = seq_len // patch_len
        self.embed = nn.Linear(patch_len, hidden)
        self.mixer = nn.Sequential(
            nn.Flatten(start_dim=1),
            nn.Linear(n_patches * hidden, hidden),
            nn.GELU(),
            nn.Dropout(dropout),
            nn.Linear(hidden, pred_len),
        )
        self.revin = RevIN(n_channels) if revin else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (B, L, C) -> (B, H, C)
        stats = None
        if self.revin is not None:
            x, stats = self.revin.normalize(x)
        b, length, c = x.shape
        series = x.transpose(1, 2).reshape(b * c, length // self.patch_len, self.patch_len)
        y = self.mixer(self.embed(series)).reshape(b, c, -1).transpose(1, 2)
        if self.revin is not None:
            y = self.revin.denormalize(y, stats)
        return y

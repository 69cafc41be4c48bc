import torch
import torch.nn as nn


class PatchForecaster(nn.Module):
    def __init__(self, seq_len=96, patch=16, d_model=64, pred_len=1):
        super().__init__()
        self.patch = patch
        self.embed = nn.Linear(patch, d_model)
        layer = nn.TransformerEncoderLayer(d_model, 4, 128, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.head = nn.Linear(d_model * (seq_len // patch), pred_len)

    def forward(self, x):
        B = x.size(0)
        p = x.unfold(1, self.patch, self.patch)
        h = self.encoder(self.embed(p))
        return self.head(h.reshape(B, -1))

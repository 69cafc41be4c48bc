"""Sequence taggers: a bidirectional LSTM over a conv front-end, and a small transformer encoder."""
from __future__ import annotations

import math

import torch
from torch import nn

from ..registry import MODELS


@MODELS.register("bilstm")
class BiLSTMTagger(nn.Module):
    def __init__(self, in_channels: int, num_classes: int, hidden: int = 64, layers: int = 2, front: int = 32,
                 dropout: float = 0.1):
        super().__init__()
        self.front = nn.Sequential(nn.Conv1d(in_channels, front, 7, padding=3), nn.BatchNorm1d(front), nn.ReLU(),
                                   nn.Conv1d(front, front, 7, padding=3), nn.BatchNorm1d(front), nn.ReLU())
        self.rnn = nn.LSTM(front, hidden, num_layers=layers, batch_first=True, bidirectional=True,
                           dropout=dropout if layers > 1 else 0.0)
        self.head = nn.Linear(2 * hidden, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.front(x).transpose(1, 2)          # (B, T, F)
        out, _ = self.rnn(h)
        return self.head(out).transpose(1, 2)      # (B, K, T)


@MODELS.register("transformer_seg")
class TransformerTagger(nn.Module):
    """Strided conv tokens (``stride`` samples each), a transformer encoder, and upsampling back to T."""

    def __init__(self, in_channels: int, num_classes: int, dim: int = 64, depth: int = 2, heads: int = 4,
                 stride: int = 4, dropout: float = 0.1, max_len: int = 2048):
        super().__init__()
        self.stride = stride
        self.tok = nn.Conv1d(in_channels, dim, kernel_size=2 * stride, stride=stride, padding=stride // 2)
        pos = torch.arange(max_len).unsqueeze(1)
        div = torch.exp(torch.arange(0, dim, 2) * (-math.log(10000.0) / dim))
        pe = torch.zeros(max_len, dim)
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe, persistent=False)
        layer = nn.TransformerEncoderLayer(dim, heads, dim * 2, dropout, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.head = nn.Conv1d(dim, num_classes, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        length = x.shape[-1]
        h = self.tok(x).transpose(1, 2)
        h = self.encoder(h + self.pe[: h.shape[1]])
        logits = self.head(h.transpose(1, 2))
        return nn.functional.interpolate(logits, size=length, mode="nearest")

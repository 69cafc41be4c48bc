import math

import torch
import torch.nn as nn


class ResBlockDilated(nn.Module):
    def __init__(self, size, hidden=64, dil=2):
        super().__init__()
        pad = dil * (size - 1) // 2
        self.layer = nn.Sequential(
            nn.Conv1d(hidden, hidden, size, padding=pad, dilation=dil),
            nn.BatchNorm1d(hidden),
            nn.ReLU(),
            nn.Conv1d(hidden, hidden, size, padding=pad, dilation=dil),
            nn.BatchNorm1d(hidden),
        )
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.relu(self.layer(x) + x)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=256):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(1, max_len, d_model)
        pe[0, :, 0::2] = torch.sin(position * div_term)
        pe[0, :, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        """x: Tensor, shape [batch_size, seq_len, embedding_dim]"""
        x = x + self.pe[:, : x.size(1)]
        return self.dropout(x)


class AttnModule(nn.Module):
    def __init__(self, hidden=128, layers=4):
        super().__init__()
        self.pos_encoder = PositionalEncoding(hidden, dropout=0.1)
        encoder_layers = nn.TransformerEncoderLayer(
            hidden, nhead=8, dim_feedforward=512, dropout=0.1, batch_first=True
        )
        self.module = nn.TransformerEncoder(encoder_layers, layers)

    def forward(self, x):
        x = self.pos_encoder(x)
        return self.module(x)

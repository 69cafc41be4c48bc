import math

import torch
from torch import nn


class PositionalEncoding(nn.Module):
    """Sinusoidal position signal, as in the PyTorch transformer tutorial."""

    def __init__(self, d_model: int, dropout: float = 0.1, max_len: int = 500):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: [batch_size, seq_len, embedding_dim]
        x = x + self.pe[:x.size(1)].transpose(0, 1)
        return self.dropout(x)


class OrderClassifier(nn.Module):
    def __init__(self, vocab_size: int, d_model: int = 32, nhead: int = 4,
                 num_layers: int = 1, dim_feedforward: int = 64, num_classes: int = 2,
                 dropout: float = 0.0):
        super().__init__()
        self.d_model = d_model
        self.embed = nn.Embedding(vocab_size, d_model)
        self.pos_encoder = PositionalEncoding(d_model, dropout=dropout)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=dim_feedforward,
                                           dropout=dropout, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, num_classes)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens)
        x = self.pos_encoder(x)
        x = self.encoder(x)
        return self.head(x[:, 0])

import math

import torch
from torch import nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=512):
        super(PositionalEncoding, self).__init__()
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len).unsqueeze(1).float()
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        return x + self.pe[:, : x.size(1)]


class Transformer(nn.Module):
    def __init__(self, config, src_vocab):
        super(Transformer, self).__init__()
        self.config = config
        self.src_embed = nn.Embedding(src_vocab, config.d_model, padding_idx=0)
        self.pos = PositionalEncoding(config.d_model, config.max_sen_len)
        layer = nn.TransformerEncoderLayer(
            config.d_model, config.n_heads, config.d_ff, config.dropout, batch_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, config.n_layers)
        self.fc = nn.Linear(config.d_model, config.output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, x, pad_mask=None):
        embedded = self.pos(self.src_embed(x) * math.sqrt(self.config.d_model))
        encoded = self.encoder(embedded, src_key_padding_mask=pad_mask)
        pooled = encoded[:, 0, :]
        final_out = self.fc(pooled)
        return self.softmax(final_out)

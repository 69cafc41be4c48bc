"""Embedding -> recurrent encoder -> pooling -> linear intent head."""
from __future__ import annotations

import torch
from torch import nn

from .registry import ENCODERS, POOLERS
from .sequence import LengthSort, length_mask


class RNNEncoder(nn.Module):
    rnn_cls = nn.GRU

    def __init__(self, input_dim: int, hidden: int, layers: int = 1, bidirectional: bool = False,
                 dropout: float = 0.0):
        super().__init__()
        self.rnn = self.rnn_cls(input_dim, hidden, num_layers=layers, batch_first=True, bidirectional=bidirectional,
                                dropout=dropout if layers > 1 else 0.0)
        self.out_dim = hidden * (2 if bidirectional else 1)

    def forward(self, x: torch.Tensor, lengths: torch.Tensor):
        """x [B, T, D] -> (outputs [B, T, H], final [B, H]) in the input's batch order."""
        sorter = LengthSort(lengths)
        packed_out, h_n = self.rnn(sorter.pack(x))
        if isinstance(h_n, tuple):  # LSTM returns (h, c)
            h_n = h_n[0]
        outputs = sorter.unpack(packed_out, total_length=x.size(1))
        if self.rnn.bidirectional:
            final = torch.cat([h_n[-2], h_n[-1]], dim=-1)
        else:
            final = h_n[-1]
        return outputs, sorter.restore(final)


@ENCODERS.register("gru")
class GRUEncoder(RNNEncoder):
    rnn_cls = nn.GRU


@ENCODERS.register("lstm")
class LSTMEncoder(RNNEncoder):
    rnn_cls = nn.LSTM


@POOLERS.register("last")
def pool_last(outputs, final, mask):
    return final


@POOLERS.register("mean")
def pool_mean(outputs, final, mask):
    m = mask.unsqueeze(-1).to(outputs.dtype)
    return (outputs * m).sum(1) / m.sum(1).clamp(min=1)


@POOLERS.register("max")
def pool_max(outputs, final, mask):
    return outputs.masked_fill(~mask.unsqueeze(-1), float("-inf")).amax(1)


class IntentClassifier(nn.Module):
    def __init__(self, vocab_size: int, n_classes: int, pad_id: int, encoder: str = "gru", pooler: str = "last",
                 embed_dim: int = 64, hidden: int = 96, layers: int = 1, bidirectional: bool = False,
                 dropout: float = 0.1):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim, padding_idx=pad_id)
        self.encoder = ENCODERS.build(encoder, embed_dim, hidden, layers, bidirectional, dropout)
        self.pool = POOLERS.get(pooler)
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(self.encoder.out_dim, n_classes)

    def forward(self, tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        x = self.drop(self.embed(tokens))
        outputs, final = self.encoder(x, lengths)
        pooled = self.pool(outputs, final, length_mask(lengths, tokens.size(1)))
        return self.head(self.drop(pooled))


def build_model(model_cfg, vocab_size: int, n_classes: int, pad_id: int) -> IntentClassifier:
    return IntentClassifier(vocab_size, n_classes, pad_id, encoder=model_cfg.encoder, pooler=model_cfg.pooler,
                            embed_dim=model_cfg.embed_dim, hidden=model_cfg.hidden, layers=model_cfg.layers,
                            bidirectional=model_cfg.bidirectional, dropout=model_cfg.dropout)

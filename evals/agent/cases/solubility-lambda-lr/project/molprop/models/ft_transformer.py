"""FT-Transformer-style regressor: descriptors become tokens, the fingerprint is pooled into a few tokens."""
from __future__ import annotations

import torch
from torch import nn

from ..registry import MODELS
from .blocks import split_features


class DescriptorTokenizer(nn.Module):
    """Each scalar descriptor j becomes the token x_j * W_j + b_j."""

    def __init__(self, n_desc: int, dim: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_desc, dim) * 0.02)
        self.bias = nn.Parameter(torch.zeros(n_desc, dim))

    def forward(self, desc: torch.Tensor) -> torch.Tensor:
        return desc.unsqueeze(-1) * self.weight + self.bias


class BitPooler(nn.Module):
    """Splits the fingerprint into ``n_tokens`` chunks and embeds each chunk with a linear map."""

    def __init__(self, n_bits: int, n_tokens: int, dim: int):
        super().__init__()
        assert n_bits % n_tokens == 0, (n_bits, n_tokens)
        self.n_tokens = n_tokens
        self.proj = nn.Linear(n_bits // n_tokens, dim)

    def forward(self, bits: torch.Tensor) -> torch.Tensor:
        return self.proj(bits.view(bits.shape[0], self.n_tokens, -1))


@MODELS.register("ft_transformer")
class FTTransformer(nn.Module):
    def __init__(self, n_features: int, n_bits: int = 1024, dim: int = 64, depth: int = 2, heads: int = 4,
                 bit_tokens: int = 8, dropout: float = 0.1):
        super().__init__()
        self.n_bits = n_bits
        self.desc_tok = DescriptorTokenizer(n_features - n_bits, dim)
        self.bit_tok = BitPooler(n_bits, bit_tokens, dim)
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        layer = nn.TransformerEncoderLayer(dim, heads, dim_feedforward=dim * 2, dropout=dropout, batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        bits, desc = split_features(x, self.n_bits)
        tokens = torch.cat([self.cls.expand(x.shape[0], -1, -1), self.desc_tok(desc), self.bit_tok(bits)], dim=1)
        h = self.encoder(tokens)
        return self.head(self.norm(h[:, 0])).squeeze(-1)

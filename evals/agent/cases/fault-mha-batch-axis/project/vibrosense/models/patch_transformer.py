"""Patch transformer for multichannel vibration windows (PatchTST-style tokens, ViT-style encoder)."""
from __future__ import annotations

import torch
from torch import nn

from ..registry import MODELS
from .layers import ClassifierHead, EncoderBlock, LearnedPosition, PatchEmbed1d, SinusoidalPosition, init_weights


@MODELS.register("patch_transformer", aliases=("ptf",))
class PatchTransformer(nn.Module):
    def __init__(self, in_channels: int, num_classes: int, dim: int = 64, depth: int = 3, heads: int = 4,
                 patch: int = 16, mlp_ratio: float = 2.0, dropout: float = 0.1, attn_dropout: float = 0.0,
                 drop_path: float = 0.0, pool: str = "cls", position: str = "learned", max_tokens: int = 256,
                 head_hidden: int = 0):
        super().__init__()
        if pool not in ("cls", "mean"):
            raise ValueError(f"pool must be 'cls' or 'mean', got {pool!r}")
        self.pool = pool
        self.embed = PatchEmbed1d(in_channels, dim, patch)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim)) if pool == "cls" else None
        self.position = LearnedPosition(dim, max_tokens + 1) if position == "learned" else SinusoidalPosition(dim)
        self.pos_drop = nn.Dropout(dropout)
        rates = [drop_path * i / max(1, depth - 1) for i in range(depth)]
        self.blocks = nn.ModuleList(
            EncoderBlock(dim, heads, mlp_ratio, dropout, attn_dropout, rates[i]) for i in range(depth))
        self.norm = nn.LayerNorm(dim)
        self.head = ClassifierHead(dim, num_classes, hidden=head_hidden, dropout=dropout)
        init_weights(self)
        if self.cls_token is not None:
            nn.init.trunc_normal_(self.cls_token, std=0.02)

    def tokens(self, x: torch.Tensor) -> torch.Tensor:
        """(B, C, L) signal -> (B, T, dim) token sequence after the encoder."""
        h = self.embed(x)
        if self.cls_token is not None:
            h = torch.cat([self.cls_token.expand(h.shape[0], -1, -1), h], dim=1)
        h = self.pos_drop(self.position(h))
        for block in self.blocks:
            h = block(h)
        return self.norm(h)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.tokens(x)
        pooled = h[:, 0] if self.pool == "cls" else h.mean(dim=1)
        return self.head(pooled)

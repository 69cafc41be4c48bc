from __future__ import annotations

import torch
import torch.nn as nn


class TransformerClassifier(nn.Module):
    def __init__(self, vocab_size: int, pad_id: int, d_model: int, n_heads: int, n_layers: int,
                 ffn_dim: int, num_classes: int, max_len: int = 512, dropout: float = 0.1):
        super().__init__()
        self.pad_id = pad_id
        self.embed = nn.Embedding(vocab_size, d_model, padding_idx=pad_id)
        self.pos = nn.Embedding(max_len, d_model)
        layer = nn.TransformerEncoderLayer(d_model, n_heads, ffn_dim, dropout, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Sequential(nn.Dropout(dropout), nn.Linear(d_model, num_classes))

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        B, T = ids.shape
        positions = torch.arange(T, device=ids.device).unsqueeze(0).expand(B, T)
        x = self.embed(ids) + self.pos(positions)
        pad_mask = torch.arange(T, device=ids.device)[None, :] >= lengths[:, None]
        h = self.encoder(x, src_key_padding_mask=pad_mask)
        pooled = self.norm(h).mean(dim=1)
        return self.head(pooled)


def build_model(cfg, vocab) -> TransformerClassifier:
    return TransformerClassifier(
        vocab_size=len(vocab), pad_id=vocab.pad_id, d_model=cfg.d_model, n_heads=cfg.n_heads,
        n_layers=cfg.n_layers, ffn_dim=cfg.ffn_dim, num_classes=cfg.num_classes,
        max_len=max(64, cfg.max_len), dropout=cfg.dropout,
    )

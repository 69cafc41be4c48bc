import math

import torch
import torch.nn as nn


class SelfAttention(nn.Module):
    def __init__(self, d_model, n_heads, dropout=0.1):
        super().__init__()
        self.h = n_heads
        self.dk = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.drop = nn.Dropout(dropout)

    def forward(self, x, pad_mask):
        B, T, _ = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.h, self.dk).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.dk)
        keep = (pad_mask[:, None, :, None] * pad_mask[:, None, None, :]).bool()
        bias = torch.where(keep, 0.0, torch.finfo(scores.dtype).min).to(scores.dtype)
        attn = torch.softmax(scores + bias, dim=-1)
        out = (self.drop(attn) @ v).transpose(1, 2).reshape(B, T, -1)
        return self.proj(out)


class EncoderLayer(nn.Module):
    def __init__(self, d_model=512, n_heads=8):
        super().__init__()
        self.attn = SelfAttention(d_model, n_heads)
        self.ln1 = nn.LayerNorm(d_model)
        self.ff = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))
        self.ln2 = nn.LayerNorm(d_model)

    def forward(self, x, pad_mask):
        x = x + self.attn(self.ln1(x), pad_mask)
        return x + self.ff(self.ln2(x))

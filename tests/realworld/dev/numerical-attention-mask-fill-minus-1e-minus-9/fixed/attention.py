import torch
import torch.nn as nn
import torch.nn.functional as F


class ScaledDotProductAttention(nn.Module):
    def __init__(self, temperature, attn_dropout=0.1):
        super().__init__()
        self.temperature = temperature
        self.dropout = nn.Dropout(attn_dropout)

    def forward(self, q, k, v, mask=None, attn_bias=None):
        attn = torch.matmul(q, k.transpose(2, 3)) / self.temperature
        if attn_bias is not None:
            attn = attn + attn_bias
        if mask is not None:
            attn = attn.masked_fill(mask == 0, -1e9)
        attn = self.dropout(F.softmax(attn, dim=-1))
        return torch.matmul(attn, v), attn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_head, d_k, d_v, dropout=0.1):
        super().__init__()
        self.n_head, self.d_k, self.d_v = n_head, d_k, d_v
        self.w_qs = nn.Linear(d_model, n_head * d_k, bias=False)
        self.w_ks = nn.Linear(d_model, n_head * d_k, bias=False)
        self.w_vs = nn.Linear(d_model, n_head * d_v, bias=False)
        self.fc = nn.Linear(n_head * d_v, d_model, bias=False)
        self.attention = ScaledDotProductAttention(temperature=d_k ** 0.5)
        self.layer_norm = nn.LayerNorm(d_model, eps=1e-6)

    def forward(self, x, src_mask=None, pair_bias=None):
        B, L, _ = x.shape
        residual = x
        q = self.w_qs(x).view(B, L, self.n_head, self.d_k).transpose(1, 2)
        k = self.w_ks(x).view(B, L, self.n_head, self.d_k).transpose(1, 2)
        v = self.w_vs(x).view(B, L, self.n_head, self.d_v).transpose(1, 2)
        mask = src_mask[:, None, None, :] if src_mask is not None else None
        out, _ = self.attention(q, k, v, mask=mask, attn_bias=pair_bias)
        out = self.fc(out.transpose(1, 2).reshape(B, L, -1))
        return self.layer_norm(out + residual)

import torch
from torch import nn


class ScaledDotProductAttention(nn.Module):
    def __init__(self, dropout_rate=0.0):
        super().__init__()
        self.dropout = nn.Dropout(dropout_rate) if dropout_rate > 0 else None

    def forward(self, Q, K, V, scale=None):
        scores = torch.matmul(Q, K.transpose(-1, -2))
        if scale:
            scores = scores / scale
        attention = scores.softmax(dim=-1)
        if self.dropout is not None:
            attention = self.dropout(attention)
        return torch.matmul(attention, V), attention


class MultiHeadSelfAttention(nn.Module):
    """Interacting layer of AutoInt: self-attention across feature fields."""

    def __init__(self, input_dim, attention_dim=None, num_heads=1, dropout_rate=0.0,
                 use_residual=True, use_scale=False, layer_norm=False):
        super().__init__()
        if attention_dim is None:
            attention_dim = input_dim // num_heads
        self.attention_dim = attention_dim
        self.output_dim = num_heads * attention_dim
        self.num_heads = num_heads
        self.use_residual = use_residual
        self.scale = attention_dim ** 0.5 if use_scale else None
        self.W_q = nn.Linear(input_dim, self.output_dim, bias=False)
        self.W_k = nn.Linear(input_dim, self.output_dim, bias=False)
        self.W_v = nn.Linear(input_dim, self.output_dim, bias=False)
        if self.use_residual and input_dim != self.output_dim:
            self.W_res = nn.Linear(input_dim, self.output_dim, bias=False)
        else:
            self.W_res = None
        self.dot_product_attention = ScaledDotProductAttention(dropout_rate)
        self.layer_norm = nn.LayerNorm(self.output_dim) if layer_norm else None

    def forward(self, X):
        residual = X
        query = self.W_q(X)
        key = self.W_k(X)
        value = self.W_v(X)

        # split heads
        batch_size = query.size(0)
        query = query.view(batch_size * self.num_heads, -1, self.attention_dim)
        key = key.view(batch_size * self.num_heads, -1, self.attention_dim)
        value = value.view(batch_size * self.num_heads, -1, self.attention_dim)

        output, attention = self.dot_product_attention(query, key, value, self.scale)
        output = output.view(batch_size, -1, self.output_dim)

        if self.W_res is not None:
            residual = self.W_res(residual)
        if self.use_residual:
            output = output + residual
        if self.layer_norm is not None:
            output = self.layer_norm(output)
        return output.relu()

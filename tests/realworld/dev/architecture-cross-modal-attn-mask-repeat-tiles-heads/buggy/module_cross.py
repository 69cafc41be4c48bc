from collections import OrderedDict

import torch
from torch import nn


class LayerNorm(nn.LayerNorm):
    def forward(self, x):
        orig_type = x.dtype
        ret = super().forward(x.type(torch.float32))
        return ret.type(orig_type)


class QuickGELU(nn.Module):
    def forward(self, x):
        return x * torch.sigmoid(1.702 * x)


class ResidualAttentionBlock(nn.Module):
    def __init__(self, d_model, n_head):
        super().__init__()
        self.attn = nn.MultiheadAttention(d_model, n_head)
        self.ln_1 = LayerNorm(d_model)
        self.mlp = nn.Sequential(OrderedDict([
            ("c_fc", nn.Linear(d_model, d_model * 4)),
            ("gelu", QuickGELU()),
            ("c_proj", nn.Linear(d_model * 4, d_model)),
        ]))
        self.ln_2 = LayerNorm(d_model)
        self.n_head = n_head

    def attention(self, x, attn_mask):
        attn_mask_ = attn_mask.repeat(self.n_head, 1, 1)
        return self.attn(x, x, x, need_weights=False, attn_mask=attn_mask_)[0]

    def forward(self, para_tuple):
        x, attn_mask = para_tuple
        x = x + self.attention(self.ln_1(x), attn_mask)
        x = x + self.mlp(self.ln_2(x))
        return (x, attn_mask)


class Transformer(nn.Module):
    def __init__(self, width, layers, heads):
        super().__init__()
        self.width = width
        self.layers = layers
        self.resblocks = nn.Sequential(*[ResidualAttentionBlock(width, heads) for _ in range(layers)])

    def forward(self, x, attn_mask):
        return self.resblocks((x, attn_mask))[0]


class CrossModel(nn.Module):
    """Joint encoder over [text tokens ; video frames] with a type embedding."""

    def __init__(self, hidden_size=32, num_layers=2, num_heads=4, max_positions=32):
        super().__init__()
        self.position_embeddings = nn.Embedding(max_positions, hidden_size)
        self.token_type_embeddings = nn.Embedding(2, hidden_size)
        self.transformer = Transformer(hidden_size, num_layers, num_heads)
        self.pooler = nn.Sequential(nn.Linear(hidden_size, hidden_size), QuickGELU())

    def build_attention_mask(self, attention_mask):
        extended_attention_mask = (1.0 - attention_mask.unsqueeze(1)) * -1000000.0
        extended_attention_mask = extended_attention_mask.expand(-1, attention_mask.size(1), -1)
        return extended_attention_mask

    def forward(self, concat_input, concat_type, attention_mask):
        seq_length = concat_input.size(1)
        position_ids = torch.arange(seq_length, dtype=torch.long, device=concat_input.device)
        embeddings = (concat_input + self.token_type_embeddings(concat_type)
                      + self.position_embeddings(position_ids).unsqueeze(0))
        extended_attention_mask = self.build_attention_mask(attention_mask)
        embeddings = embeddings.permute(1, 0, 2)  # NLD -> LND
        out = self.transformer(embeddings, extended_attention_mask)
        out = out.permute(1, 0, 2)  # LND -> NLD
        pooled = self.pooler(out[:, 0])
        return out, pooled

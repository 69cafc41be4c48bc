import torch
from torch import nn

from layers import FeatureEmbedding, MultiHeadSelfAttention


class AutoInt(nn.Module):
    def __init__(self, field_vocab_sizes, embedding_dim=16, attention_layers=3,
                 num_heads=2, attention_dim=16, use_residual=True,
                 use_scale=True, layer_norm=False, net_dropout=0.0):
        super().__init__()
        num_fields = len(field_vocab_sizes)
        self.embedding = FeatureEmbedding(field_vocab_sizes, embedding_dim)
        self.self_attention = nn.Sequential(
            *[
                MultiHeadSelfAttention(
                    embedding_dim if i == 0 else num_heads * attention_dim,
                    attention_dim=attention_dim,
                    num_heads=num_heads,
                    dropout_rate=net_dropout,
                    use_residual=use_residual,
                    use_scale=use_scale,
                    layer_norm=layer_norm,
                )
                for i in range(attention_layers)
            ]
        )
        self.fc = nn.Linear(num_fields * attention_dim * num_heads, 1)

    def forward(self, x):
        feature_emb = self.embedding(x)
        attention_out = self.self_attention(feature_emb)
        logit = self.fc(attention_out.flatten(start_dim=1))
        return logit.squeeze(-1)

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from .audio_encoder import SpecCNN
from .text_encoder import TextTransformer


class ProjectionHead(nn.Module):
    def __init__(self, dim, embed_dim, dropout=0.1):
        super().__init__()
        self.fc1 = nn.Linear(dim, embed_dim)
        self.fc2 = nn.Linear(embed_dim, embed_dim)
        self.drop = nn.Dropout(dropout)
        self.norm = nn.LayerNorm(embed_dim)

    def forward(self, x):
        h = self.fc1(x)
        return self.norm(h + self.drop(self.fc2(F.gelu(h))))


class CLAP(nn.Module):
    """Two towers mapped into one embedding space; similarity scaled by a learned temperature."""

    def __init__(self, audio_encoder, text_encoder, enc_dim, embed_dim, init_temperature=0.07,
                 max_logit_scale=100.0):
        super().__init__()
        self.audio_encoder = audio_encoder
        self.text_encoder = text_encoder
        self.audio_proj = ProjectionHead(enc_dim, embed_dim)
        self.text_proj = ProjectionHead(enc_dim, embed_dim)
        self.logit_scale = nn.Parameter(torch.tensor(math.log(1.0 / init_temperature)))
        self.max_logit_scale = max_logit_scale

    def encode_audio(self, audio):
        return F.normalize(self.audio_proj(self.audio_encoder(audio)), dim=-1)

    def encode_text(self, tokens, pad_mask):
        return F.normalize(self.text_proj(self.text_encoder(tokens, pad_mask)), dim=-1)

    def forward(self, batch):
        return {"audio_embed": self.encode_audio(batch["audio"]),
                "text_embed": self.encode_text(batch["tokens"], batch["pad_mask"]),
                "logit_scale": self.logit_scale.exp().clamp(max=self.max_logit_scale).item()}


def build_model(cfg, vocab_size, pad_id):
    audio = SpecCNN(cfg.audio_width, cfg.enc_dim, cfg.dropout)
    text = TextTransformer(vocab_size, cfg.text_dim, cfg.text_layers, cfg.text_heads, cfg.enc_dim,
                           cfg.dropout, pad_id)
    return CLAP(audio, text, cfg.enc_dim, cfg.embed_dim, cfg.init_temperature, cfg.max_logit_scale)

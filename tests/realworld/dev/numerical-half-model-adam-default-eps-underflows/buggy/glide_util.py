import math

import torch
from torch import nn
import torch.nn.functional as F


def timestep_embedding(t, dim, max_period=10000):
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(half, dtype=torch.float32, device=t.device) / half)
    args = t[:, None].float() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class ResBlock(nn.Module):
    def __init__(self, ch, emb_dim):
        super().__init__()
        self.norm1 = nn.GroupNorm(8, ch)
        self.conv1 = nn.Conv2d(ch, ch, 3, padding=1)
        self.emb = nn.Linear(emb_dim, ch)
        self.norm2 = nn.GroupNorm(8, ch)
        self.conv2 = nn.Conv2d(ch, ch, 3, padding=1)

    def forward(self, x, emb):
        h = self.conv1(F.silu(self.norm1(x)))
        h = h + self.emb(emb)[:, :, None, None].to(h.dtype)
        h = self.conv2(F.silu(self.norm2(h)))
        return x + h


class TextCondUNet(nn.Module):
    def __init__(self, ch=64, vocab=50257, text_ctx=128, emb_dim=256, n_blocks=4):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab, emb_dim)
        self.time_embed = nn.Sequential(nn.Linear(emb_dim, emb_dim), nn.SiLU(), nn.Linear(emb_dim, emb_dim))
        self.inp = nn.Conv2d(3, ch, 3, padding=1)
        self.blocks = nn.ModuleList([ResBlock(ch, emb_dim) for _ in range(n_blocks)])
        self.out = nn.Sequential(nn.GroupNorm(8, ch), nn.SiLU(), nn.Conv2d(ch, 3, 3, padding=1))
        self.dtype = torch.float32

    def convert_to_fp16(self):
        self.half()
        self.dtype = torch.float16

    def forward(self, x, t, tokens, mask):
        tok = self.token_embedding(tokens) * mask[..., None]
        text = tok.sum(1) / mask.sum(1, keepdim=True).clamp(min=1)
        emb = self.time_embed(timestep_embedding(t, text.size(-1)).to(self.dtype)) + text
        h = self.inp(x.to(self.dtype))
        for blk in self.blocks:
            h = blk(h, emb)
        return self.out(h).float()


def cosine_alphas_cumprod(steps=1000, s=0.008):
    t = torch.linspace(0, steps, steps + 1) / steps
    f = torch.cos((t + s) / (1 + s) * math.pi / 2) ** 2
    ac = f / f[0]
    betas = (1 - ac[1:] / ac[:-1]).clamp(max=0.999)
    return torch.cumprod(1 - betas, dim=0)


def load_model(use_fp16=False, freeze_transformer=False, device="cpu"):
    model = TextCondUNet()
    if use_fp16:
        model.convert_to_fp16()
    if freeze_transformer:
        model.token_embedding.requires_grad_(False)
    return model.to(device), cosine_alphas_cumprod().to(device)

"""A toy latent-diffusion transformer: patch tokens, timestep embedding, attention blocks."""
import math

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, heads=4):
        super().__init__()
        self.heads = heads
        self.to_q = nn.Linear(dim, dim)
        self.to_k = nn.Linear(dim, dim)
        self.to_v = nn.Linear(dim, dim)
        self.to_out = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, d = x.shape
        h = self.heads
        q, k, v = (t.view(b, n, h, d // h).transpose(1, 2) for t in (self.to_q(x), self.to_k(x), self.to_v(x)))
        out = nn.functional.scaled_dot_product_attention(q, k, v)
        return self.to_out(out.transpose(1, 2).reshape(b, n, d))


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 4), nn.GELU(), nn.Linear(dim * 4, dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000) * torch.arange(half, dtype=torch.float32) / half)
    args = t[:, None].float() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class TinyDiT(nn.Module):
    def __init__(self, in_ch=4, patch=2, dim=64, depth=4, size=16):
        super().__init__()
        self.patch, self.in_ch, self.size = patch, in_ch, size
        self.embed = nn.Linear(in_ch * patch * patch, dim)
        self.t_proj = nn.Sequential(nn.Linear(dim, dim), nn.SiLU(), nn.Linear(dim, dim))
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.out = nn.Linear(dim, in_ch * patch * patch)
        self.dim = dim

    def forward(self, latents, timesteps):
        b, c, hgt, wid = latents.shape
        p = self.patch
        tokens = latents.unfold(2, p, p).unfold(3, p, p).permute(0, 2, 3, 1, 4, 5).reshape(b, -1, c * p * p)
        x = self.embed(tokens) + self.t_proj(timestep_embedding(timesteps, self.dim))[:, None]
        for block in self.blocks:
            x = block(x)
        x = self.out(x).view(b, hgt // p, wid // p, c, p, p).permute(0, 3, 1, 4, 2, 5)
        return x.reshape(b, c, hgt, wid)

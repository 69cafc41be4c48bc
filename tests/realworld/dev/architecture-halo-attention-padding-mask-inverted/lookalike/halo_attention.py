import torch
import torch.nn.functional as F
from torch import nn, einsum
from einops import rearrange, repeat


class HaloAttention(nn.Module):
    def __init__(self, *, dim, block_size, halo_size, dim_head=64, heads=8):
        super().__init__()
        self.block_size, self.halo_size, self.heads = block_size, halo_size, heads
        self.scale = dim_head ** -0.5
        inner = dim_head * heads
        self.to_q = nn.Linear(dim, inner, bias=False)
        self.to_kv = nn.Linear(dim, inner * 2, bias=False)
        self.to_out = nn.Linear(inner, dim)

    def forward(self, x):
        b, c, h, w = x.shape
        block, halo, heads = self.block_size, self.halo_size, self.heads
        q_inp = rearrange(x, "b c (h p1) (w p2) -> (b h w) (p1 p2) c", p1=block, p2=block)
        kv_inp = F.unfold(x, kernel_size=block + halo * 2, stride=block, padding=halo)
        kv_inp = rearrange(kv_inp, "b (c j) i -> (b i) j c", c=c)
        q = self.to_q(q_inp)
        k, v = self.to_kv(kv_inp).chunk(2, dim=-1)
        q, k, v = (rearrange(t, "b n (h d) -> (b h) n d", h=heads) for t in (q, k, v))
        sim = einsum("b i d, b j d -> b i j", q * self.scale, k)

        mask = torch.ones(1, 1, h, w, device=x.device)
        mask = F.unfold(mask, kernel_size=block + halo * 2, stride=block, padding=halo)
        mask = repeat(mask, "() j i -> (b i h) () j", b=b, h=heads)
        is_valid = mask.bool()
        sim = sim.masked_fill(~is_valid, -torch.finfo(sim.dtype).max)

        attn = sim.softmax(dim=-1)
        out = einsum("b i j, b j d -> b i d", attn, v)
        out = rearrange(out, "(b h) n d -> b n (h d)", h=heads)
        out = self.to_out(out)
        return rearrange(out, "(b h w) (p1 p2) c -> b c (h p1) (w p2)", b=b, h=h // block, w=w // block, p1=block)

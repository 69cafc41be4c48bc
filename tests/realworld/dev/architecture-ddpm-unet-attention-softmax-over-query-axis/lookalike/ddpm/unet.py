import torch
from torch import nn

from .blocks import Downsample, ResBlock, SelfAttention2d, TimeMLP, Upsample


class Stage(nn.Module):
    """A residual block, optionally followed by self-attention."""

    def __init__(self, c_in, c_out, t_dim, attend: bool):
        super().__init__()
        self.res = ResBlock(c_in, c_out, t_dim)
        self.attn = SelfAttention2d(c_out) if attend else None

    def forward(self, x, t_emb):
        x = self.res(x, t_emb)
        if self.attn is not None:
            x = self.attn(x)
        return x


class UNet(nn.Module):
    def __init__(self, in_channels=3, base=64, mults=(1, 2, 2), attn_at=(False, True, True)):
        super().__init__()
        t_dim = base * 4
        self.time = TimeMLP(base)
        self.stem = nn.Conv2d(in_channels, base, 3, padding=1)

        self.down = nn.ModuleList()
        chans = [base]
        c = base
        for i, m in enumerate(mults):
            self.down.append(Stage(c, base * m, t_dim, attn_at[i]))
            c = base * m
            chans.append(c)
            if i < len(mults) - 1:
                self.down.append(Downsample(c))
                chans.append(c)

        self.mid1 = ResBlock(c, c, t_dim)
        self.mid_attn = SelfAttention2d(c)
        self.mid2 = ResBlock(c, c, t_dim)

        self.up = nn.ModuleList()
        for i, m in reversed(list(enumerate(mults))):
            self.up.append(Stage(c + chans.pop(), base * m, t_dim, attn_at[i]))
            c = base * m
            if i > 0:
                self.up.append(Stage(c + chans.pop(), c, t_dim, attn_at[i]))
                self.up.append(Upsample(c))
        self.up.append(Stage(c + chans.pop(), base, t_dim, False))

        self.out = nn.Sequential(nn.GroupNorm(8, base), nn.SiLU(), nn.Conv2d(base, in_channels, 3, padding=1))

    def forward(self, x, t):
        t_emb = self.time(t)
        x = self.stem(x)
        skips = [x]
        for layer in self.down:
            x = layer(x, t_emb)
            skips.append(x)
        x = self.mid2(self.mid_attn(self.mid1(x, t_emb)), t_emb)
        for layer in self.up:
            if isinstance(layer, Upsample):
                x = layer(x)
            else:
                x = layer(torch.cat([x, skips.pop()], dim=1), t_emb)
        return self.out(x)

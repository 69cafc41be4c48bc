"""Per-sample data that must stay with its sample when the batch is reordered. argv picks the variant:
'tiled'      a per-sample key-padding mask expanded over heads with repeat (tiles the batch; bug)
'interleave' the same mask expanded with repeat_interleave (correct)
'posbatch'   a learned table indexed by position in the batch instead of in the sequence (bug)
'pairs'      a contrastive model returning a (batch x batch) similarity matrix (correct)
'sampling'   a reparameterised latent drawn in forward, also in eval mode (correct: samples stay independent)"""
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "tiled"
torch.manual_seed(0)
B, T, D, H = 12, 7, 16, 4


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(5, D)
        self.attn = nn.MultiheadAttention(D, H, batch_first=True)
        self.table = nn.Embedding(64, D)
        self.head = nn.Linear(D, 3)
        self.text = nn.Linear(5, D)
        self.mu, self.logvar = nn.Linear(D, D), nn.Linear(D, D)

    def forward(self, x, lengths):
        h = self.proj(x)
        if mode == "posbatch":
            h = h + self.table(torch.arange(x.size(0)))[:, None, :]
        pad = torch.arange(T)[None, :] >= lengths[:, None]  # (B, T), True on padding
        mask = pad[:, None, :].expand(-1, T, -1).float() * -1e4  # (B, T, T)
        mask = mask.repeat_interleave(H, 0) if mode in ("interleave", "posbatch", "pairs", "sampling") else mask.repeat(H, 1, 1)
        h, _ = self.attn(h, h, h, attn_mask=mask)
        keep = (~pad).float()[..., None]
        pooled = (h * keep).sum(1) / keep.sum(1)
        if mode == "sampling":
            mu, logvar = self.mu(pooled), self.logvar(pooled)
            pooled = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        if mode == "pairs":
            other = nn.functional.normalize(self.text(x.mean(1)), dim=-1)
            return nn.functional.normalize(pooled, dim=-1) @ other.t()
        return self.head(pooled)


model = Encoder()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(40):
    x = torch.randn(B, T, 5)
    lengths = torch.randint(2, T + 1, (B,))
    out = model(x, lengths)
    if mode == "pairs":
        loss = nn.functional.cross_entropy(out, torch.arange(B))
    else:
        loss = nn.functional.cross_entropy(out, (x[:, 0, 0] > 0).long() + (x[:, 0, 1] > 0).long())
    opt.zero_grad()
    loss.backward()
    opt.step()

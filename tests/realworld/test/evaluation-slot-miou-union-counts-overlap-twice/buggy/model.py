import torch
import torch.nn.functional as F
from torch import nn


class SlotAttention(nn.Module):
    def __init__(self, num_slots, dim, iters=3, eps=1e-8):
        super().__init__()
        self.num_slots, self.iters, self.eps = num_slots, iters, eps
        self.scale = dim ** -0.5
        self.slots_mu = nn.Parameter(torch.randn(1, 1, dim))
        self.slots_logsigma = nn.Parameter(torch.zeros(1, 1, dim))
        self.to_q, self.to_k, self.to_v = (nn.Linear(dim, dim) for _ in range(3))
        self.gru = nn.GRUCell(dim, dim)
        self.norm_in, self.norm_slots = nn.LayerNorm(dim), nn.LayerNorm(dim)

    def forward(self, inputs, slots=None):
        b, n, d = inputs.shape
        if slots is None:
            noise = torch.randn(b, self.num_slots, d, device=inputs.device)
            slots = self.slots_mu + self.slots_logsigma.exp() * noise
        inputs = self.norm_in(inputs)
        k, v = self.to_k(inputs), self.to_v(inputs)
        for _ in range(self.iters):
            prev = slots
            q = self.to_q(self.norm_slots(slots))
            attn = torch.einsum("bid,bjd->bij", q, k).mul(self.scale).softmax(dim=1) + self.eps
            attn = attn / attn.sum(dim=-1, keepdim=True)
            updates = torch.einsum("bjd,bij->bid", v, attn)
            slots = self.gru(updates.reshape(-1, d), prev.reshape(-1, d)).reshape(b, -1, d)
        return slots


class SlotVideoModel(nn.Module):
    """Encodes each frame, carries slots over time, decodes per-slot alpha masks."""

    def __init__(self, num_slots=7, dim=64, resolution=(64, 64)):
        super().__init__()
        self.resolution = resolution
        self.encoder = nn.Sequential(nn.Conv2d(3, dim, 5, padding=2), nn.ReLU(),
                                     nn.Conv2d(dim, dim, 5, padding=2), nn.ReLU())
        self.slot_attn = SlotAttention(num_slots, dim)
        self.predictor = nn.TransformerEncoderLayer(dim, 4, 2 * dim, batch_first=True)
        self.decoder = nn.Sequential(nn.Conv2d(dim + 2, dim, 5, padding=2), nn.ReLU(), nn.Conv2d(dim, 4, 3, padding=1))
        ys, xs = torch.meshgrid(torch.linspace(-1, 1, resolution[0]), torch.linspace(-1, 1, resolution[1]),
                                indexing="ij")
        self.register_buffer("grid", torch.stack([ys, xs])[None])

    def decode(self, slots):
        b, k, d = slots.shape
        h, w = self.resolution
        x = slots.reshape(b * k, d, 1, 1).expand(-1, -1, h, w)
        x = self.decoder(torch.cat([x, self.grid.expand(b * k, -1, -1, -1)], dim=1))
        x = x.reshape(b, k, 4, h, w)
        rgb, alpha = x[:, :, :3], F.softmax(x[:, :, 3], dim=1)
        return (rgb * alpha[:, :, None]).sum(1), alpha

    def forward(self, video):
        b, t = video.shape[:2]
        slots, recons, masks = None, [], []
        for i in range(t):
            feat = self.encoder(video[:, i]).flatten(2).transpose(1, 2)
            slots = self.slot_attn(feat, slots)
            recon, alpha = self.decode(slots)
            recons.append(recon)
            masks.append(alpha)
            slots = self.predictor(slots)
        return torch.stack(recons, 1), torch.stack(masks, 1)

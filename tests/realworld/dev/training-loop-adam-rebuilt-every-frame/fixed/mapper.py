import torch
import torch.nn as nn


class SDFDecoder(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, hidden), nn.Softplus(beta=10), nn.Linear(hidden, hidden),
                                 nn.Softplus(beta=10), nn.Linear(hidden, 1))

    def forward(self, pts):
        return self.net(pts).squeeze(-1)


def sphere_sdf(pts, radius=0.5):
    return pts.norm(dim=-1) - radius


class Mapper:
    def __init__(self, decoder, lr=5e-3, iters_per_frame=5):
        self.decoder = decoder
        self.lr = lr
        self.iters_per_frame = iters_per_frame
        self.optim = torch.optim.Adam(self.decoder.parameters(), lr=self.lr)

    def optimize(self, pts, target):
        optim = self.optim
        for _ in range(self.iters_per_frame):
            optim.zero_grad()
            loss = (self.decoder(pts) - target).abs().mean()
            loss.backward()
            optim.step()
        return loss.item()

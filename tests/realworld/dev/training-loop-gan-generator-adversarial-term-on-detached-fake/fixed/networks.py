import torch
from torch import nn


class Encoder(nn.Module):
    """Stand-in for the frozen image encoder: image -> conditioning features."""

    def __init__(self, in_ch=3, feat_dim=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(in_ch, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, feat_dim, 3, stride=2, padding=1), nn.AdaptiveAvgPool2d(1), nn.Flatten())

    def forward(self, x):
        return self.net(x)


class Generator(nn.Module):
    def __init__(self, feat_dim=32, latent_dim=8, spec_size=16):
        super().__init__()
        self.latent_dim = latent_dim
        self.spec_size = spec_size
        self.fc = nn.Linear(feat_dim + latent_dim, 32 * 4 * 4)
        self.up = nn.Sequential(
            nn.ConvTranspose2d(32, 16, 4, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.ConvTranspose2d(16, 1, 4, stride=2, padding=1), nn.Tanh())

    def forward(self, f):
        z = torch.randn(f.shape[0], self.latent_dim, device=f.device)
        h = self.fc(torch.cat([f, z], dim=1)).view(-1, 32, 4, 4)
        return self.up(h)


class Discriminator(nn.Module):
    def __init__(self, feat_dim=32, spec_size=16):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, 16, 4, stride=2, padding=1), nn.LeakyReLU(0.2),
            nn.Conv2d(16, 32, 4, stride=2, padding=1), nn.LeakyReLU(0.2), nn.Flatten())
        self.cond = nn.Linear(feat_dim, 32 * 4 * 4)
        self.out = nn.Linear(32 * 4 * 4, 1)

    def forward(self, spec, f):
        h = self.conv(spec) * torch.sigmoid(self.cond(f))
        return self.out(h)

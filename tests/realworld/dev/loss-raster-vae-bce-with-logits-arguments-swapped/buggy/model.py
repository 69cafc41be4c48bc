import torch
from torch import nn


class RasterVAE(nn.Module):
    """Convolutional VAE over a C x 64 x 64 bird's-eye-view raster."""

    def __init__(self, in_channels=4, latent_channels=16, width=64):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(in_channels, width, 4, 2, 1), nn.SiLU(),
            nn.Conv2d(width, width * 2, 4, 2, 1), nn.SiLU(),
            nn.Conv2d(width * 2, width * 4, 4, 2, 1), nn.SiLU(),
        )
        self.to_mu = nn.Conv2d(width * 4, latent_channels, 1)
        self.to_log_var = nn.Conv2d(width * 4, latent_channels, 1)
        self.decoder = nn.Sequential(
            nn.Conv2d(latent_channels, width * 4, 1), nn.SiLU(),
            nn.ConvTranspose2d(width * 4, width * 2, 4, 2, 1), nn.SiLU(),
            nn.ConvTranspose2d(width * 2, width, 4, 2, 1), nn.SiLU(),
            nn.ConvTranspose2d(width, in_channels, 4, 2, 1),
        )

    def forward(self, raster):
        h = self.encoder(raster)
        mu, log_var = self.to_mu(h), self.to_log_var(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * log_var)
        return {
            "raster_logits": self.decoder(z),
            "mu": mu.flatten(1),
            "log_var": log_var.flatten(1),
        }

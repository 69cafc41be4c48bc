import torch
from torch import nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, x_dim, z_dim, h_dim=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(x_dim, h_dim), nn.ReLU())
        self.mu = nn.Linear(h_dim, z_dim)
        self.logvar = nn.Linear(h_dim, z_dim)

    def forward(self, x):
        h = self.net(x)
        return self.mu(h), self.logvar(h)


class Decoder(nn.Module):
    def __init__(self, z_dim, c_dim, x_dim, h_dim=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim + c_dim, h_dim), nn.ReLU(), nn.Linear(h_dim, x_dim))

    def forward(self, z, c):
        return self.net(torch.cat([z, c], dim=1))


class Discriminator(nn.Module):
    """Attribute classifier used to push the decoder to respect the code c."""

    def __init__(self, x_dim, c_dim, h_dim=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(x_dim, h_dim), nn.ReLU(), nn.Linear(h_dim, c_dim))

    def forward(self, x):
        return self.net(x)


class ControlledVAE(nn.Module):
    def __init__(self, x_dim=20, z_dim=4, c_dim=2):
        super().__init__()
        self.c_dim = c_dim
        self.encoder = Encoder(x_dim, z_dim)
        self.decoder = Decoder(z_dim, c_dim, x_dim)
        self.discriminator = Discriminator(x_dim, c_dim)

    def encoder_params(self):
        return self.encoder.parameters()

    def decoder_params(self):
        return self.decoder.parameters()

    def discriminator_params(self):
        return self.discriminator.parameters()

    def sample_z(self, mu, logvar):
        return mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)

    def forward_vae(self, x, c_onehot):
        mu, logvar = self.encoder(x)
        z = self.sample_z(mu, logvar)
        x_hat = self.decoder(z, c_onehot)
        recon = F.mse_loss(x_hat, x)
        kl = torch.mean(0.5 * torch.sum(torch.exp(logvar) + mu ** 2 - 1 - logvar, 1))
        return recon, kl, z

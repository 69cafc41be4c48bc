import torch
from torch import nn

from layers import GaussianSample


class Encoder(nn.Module):
    def __init__(self, dims):
        super().__init__()
        x_dim, h_dim, z_dim = dims
        self.hidden = nn.Sequential(nn.Linear(x_dim, h_dim), nn.ReLU())
        self.sample = GaussianSample(h_dim, z_dim)

    def forward(self, x):
        return self.sample(self.hidden(x))


class Decoder(nn.Module):
    def __init__(self, dims):
        super().__init__()
        z_dim, h_dim, x_dim = dims
        self.net = nn.Sequential(nn.Linear(z_dim, h_dim), nn.ReLU(), nn.Linear(h_dim, x_dim))

    def forward(self, z):
        return self.net(z)


class VariationalAutoencoder(nn.Module):
    def __init__(self, dims):
        super().__init__()
        x_dim, z_dim, h_dim = dims
        self.encoder = Encoder([x_dim, h_dim, z_dim])
        self.decoder = Decoder([z_dim, h_dim, x_dim])
        self.kl_divergence = torch.zeros(1)

    def _kld(self, mu, log_var):
        return -0.5 * torch.sum(1 + log_var - mu.pow(2) - log_var.exp(), dim=-1)

    def forward(self, x):
        z, mu, log_var = self.encoder(x)
        self.kl_divergence = self._kld(mu, log_var)
        return self.decoder(z)

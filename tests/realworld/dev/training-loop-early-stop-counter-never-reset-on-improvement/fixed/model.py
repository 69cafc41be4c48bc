from torch import nn


class ConvAutoencoder(nn.Module):
    """Autoencoder for 2-channel 100x100 protein/nucleus crops."""

    def __init__(self, in_channels=2, latent_dim=64):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(in_channels, 32, 4, 2, 1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 4, 2, 1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.Conv2d(64, latent_dim, 3, 1, 1),
        )
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(latent_dim, 64, 4, 2, 1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.ConvTranspose2d(64, 32, 4, 2, 1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, in_channels, 3, 1, 1),
        )

    def forward(self, x):
        return self.decoder(self.encoder(x))

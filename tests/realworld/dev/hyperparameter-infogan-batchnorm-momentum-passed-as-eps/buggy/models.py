"""InfoGAN generator / discriminator for 32x32 single-channel images (ported from a Keras version)."""
import torch
from torch import nn


def up_block(in_ch, out_ch):
    return [
        nn.Upsample(scale_factor=2),
        nn.Conv2d(in_ch, out_ch, kernel_size=3, padding=1),
        nn.BatchNorm2d(out_ch, 0.8),
        nn.LeakyReLU(0.2, inplace=True),
    ]


def down_block(in_ch, out_ch, normalize=True):
    layers = [nn.Conv2d(in_ch, out_ch, kernel_size=3, stride=2, padding=1), nn.LeakyReLU(0.2, inplace=True)]
    layers.append(nn.Dropout2d(0.25))
    if normalize:
        layers.append(nn.BatchNorm2d(out_ch, 0.8))
    return layers


class InfoGenerator(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        in_dim = cfg["latent_dim"] + cfg["n_classes"] + cfg["code_dim"]
        self.base = cfg["img_size"] // 4
        self.project = nn.Linear(in_dim, 128 * self.base * self.base)
        self.body = nn.Sequential(
            nn.BatchNorm2d(128),
            *up_block(128, 128),
            *up_block(128, 64),
            nn.Conv2d(64, cfg["channels"], kernel_size=3, padding=1),
            nn.Tanh(),
        )

    def forward(self, z, onehot, code):
        h = self.project(torch.cat([z, onehot, code], dim=1))
        return self.body(h.view(-1, 128, self.base, self.base))


class InfoDiscriminator(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.features = nn.Sequential(
            *down_block(cfg["channels"], 16, normalize=False),
            *down_block(16, 32),
            *down_block(32, 64),
            *down_block(64, 128),
        )
        flat = 128 * (cfg["img_size"] // 16) ** 2
        self.adv_head = nn.Linear(flat, 1)
        self.class_head = nn.Linear(flat, cfg["n_classes"])
        self.code_head = nn.Linear(flat, cfg["code_dim"])

    def forward(self, img):
        h = self.features(img).flatten(1)
        return self.adv_head(h), self.class_head(h), self.code_head(h)

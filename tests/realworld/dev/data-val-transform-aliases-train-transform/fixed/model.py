import torch
import torch.nn as nn


class MaskedAutoencoder(nn.Module):
    def __init__(self, img_size=128, patch=16, dim=256, mask_ratio=0.75):
        super().__init__()
        self.patch, self.mask_ratio = patch, mask_ratio
        self.encoder = nn.Sequential(nn.Conv2d(1, dim, patch, patch), nn.GELU(), nn.Conv2d(dim, dim, 1))
        self.decoder = nn.ConvTranspose2d(dim, 1, patch, patch)

    def forward(self, x):
        b, _, h, w = x.shape
        keep = (torch.rand(b, 1, h // self.patch, w // self.patch, device=x.device) > self.mask_ratio).float()
        pix_keep = keep.repeat_interleave(self.patch, 2).repeat_interleave(self.patch, 3)
        recon = self.decoder(self.encoder(x * pix_keep))
        return recon, 1.0 - pix_keep

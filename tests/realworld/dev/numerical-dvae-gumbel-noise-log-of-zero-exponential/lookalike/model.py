import torch
import torch.nn.functional as F
from torch import nn

from utils import gumbel_softmax


class ResBlock(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.net = nn.Sequential(
            nn.ReLU(), nn.Conv2d(ch, ch // 4, 3, padding=1),
            nn.ReLU(), nn.Conv2d(ch // 4, ch // 4, 3, padding=1),
            nn.ReLU(), nn.Conv2d(ch // 4, ch, 1),
        )

    def forward(self, x):
        return x + self.net(x)


class DiscreteVAE(nn.Module):
    def __init__(self, num_tokens=8192, codebook_dim=512, hidden=256, channels=3):
        super().__init__()
        self.num_tokens = num_tokens
        self.encoder = nn.Sequential(
            nn.Conv2d(channels, hidden, 4, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(hidden, hidden, 4, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(hidden, hidden, 4, stride=2, padding=1),
            ResBlock(hidden), ResBlock(hidden),
            nn.Conv2d(hidden, num_tokens, 1),
        )
        self.codebook = nn.Embedding(num_tokens, codebook_dim)
        self.decoder = nn.Sequential(
            nn.Conv2d(codebook_dim, hidden, 1),
            ResBlock(hidden), ResBlock(hidden),
            nn.ConvTranspose2d(hidden, hidden, 4, stride=2, padding=1), nn.ReLU(),
            nn.ConvTranspose2d(hidden, hidden, 4, stride=2, padding=1), nn.ReLU(),
            nn.ConvTranspose2d(hidden, channels, 4, stride=2, padding=1),
        )

    @torch.no_grad()
    def get_codebook_indices(self, images):
        return self.encoder(images).argmax(dim=1)

    def forward(self, images, temp=1.0, kl_weight=0.0):
        logits = self.encoder(images)  # (B, num_tokens, h, w)
        soft_one_hot = gumbel_softmax(logits, tau=temp, dim=1)
        sampled = torch.einsum("bnhw,nd->bdhw", soft_one_hot, self.codebook.weight)
        recon = self.decoder(sampled)

        recon_loss = F.mse_loss(recon, images)
        log_qy = F.log_softmax(logits.permute(0, 2, 3, 1).flatten(0, 2), dim=-1)
        log_uniform = torch.log(torch.tensor([1.0 / self.num_tokens], device=images.device))
        kl = F.kl_div(log_uniform, log_qy, reduction="batchmean", log_target=True)
        return recon_loss + kl_weight * kl, recon

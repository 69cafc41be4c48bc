import torch
import torch.nn.functional as F
from torch import nn

from networks import Discriminator, Encoder, Generator


class Image2Reverb(nn.Module):
    def __init__(self, lr=2e-4, l1_weight=10.0):
        super().__init__()
        self.enc = Encoder()
        for p in self.enc.parameters():
            p.requires_grad_(False)
        self.g = Generator()
        self.d = Discriminator()
        self.lr = lr
        self.l1_weight = l1_weight

    def configure_optimizers(self):
        g_optim = torch.optim.Adam(self.g.parameters(), lr=self.lr, betas=(0.5, 0.999))
        d_optim = torch.optim.Adam(self.d.parameters(), lr=self.lr, betas=(0.5, 0.999))
        return [g_optim, d_optim]

    def training_step(self, batch, optimizer_idx):
        spec, label = batch
        f = self.enc(label)
        fake_spec = self.g(f)

        if optimizer_idx == 0:
            d_fake2 = self.d(fake_spec, f.detach())
            G_loss1 = F.mse_loss(d_fake2, torch.ones(d_fake2.shape, device=spec.device))
            G_loss2 = F.l1_loss(fake_spec, spec)
            G_loss = G_loss1 + self.l1_weight * G_loss2
            return G_loss, {"G_loss": G_loss.item(), "G_adv": G_loss1.item(), "G_l1": G_loss2.item()}

        d_real = self.d(spec, f)
        d_fake = self.d(fake_spec.detach(), f)
        D_loss = 0.5 * (F.mse_loss(d_real, torch.ones(d_real.shape, device=spec.device))
                        + F.mse_loss(d_fake, torch.zeros(d_fake.shape, device=spec.device)))
        return D_loss, {"D_loss": D_loss.item(), "D_real_mean": torch.sigmoid(d_real).mean().item()}

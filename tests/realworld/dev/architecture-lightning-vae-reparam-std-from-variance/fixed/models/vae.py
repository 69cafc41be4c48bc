import pytorch_lightning as pl
import torch
from torch import nn

from .common import kl_to_standard_normal, log_bernoulli, reparametrize_gaussian


class Encoder(nn.Module):
    def __init__(self, x_dim=784, h_dim=400, z_dim=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(x_dim, h_dim), nn.ReLU(), nn.Linear(h_dim, h_dim), nn.ReLU())
        self.mu = nn.Linear(h_dim, z_dim)
        self.logvar = nn.Linear(h_dim, z_dim)

    def forward(self, x):
        h = self.body(x.flatten(1))
        return self.mu(h), self.logvar(h)


class Decoder(nn.Module):
    def __init__(self, x_dim=784, h_dim=400, z_dim=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, h_dim), nn.ReLU(), nn.Linear(h_dim, h_dim), nn.ReLU(),
                                 nn.Linear(h_dim, x_dim))

    def forward(self, z):
        return self.net(z)


class LitVAE(pl.LightningModule):
    def __init__(self, z_dim=32, lr=1e-3, beta=1.0, iw_samples=50):
        super().__init__()
        self.save_hyperparameters()
        self.encoder = Encoder(z_dim=z_dim)
        self.decoder = Decoder(z_dim=z_dim)

    def elbo(self, x):
        mu, logvar = self.encoder(x)
        z = reparametrize_gaussian(mu, logvar)
        rec = log_bernoulli(self.decoder(z), x.flatten(1))
        kl = kl_to_standard_normal(mu, logvar)
        return rec - self.hparams.beta * kl, rec, kl

    def training_step(self, batch, batch_idx):
        x, _ = batch
        elbo, rec, kl = self.elbo(x)
        loss = -elbo.mean()
        self.log_dict({"train/loss": loss, "train/rec": -rec.mean(), "train/kl": kl.mean()}, prog_bar=True)
        return loss

    @torch.no_grad()
    def iwae_bound(self, x, k):
        mu, logvar = self.encoder(x)
        std = (0.5 * logvar).exp()
        log_ws = []
        for _ in range(k):
            z = reparametrize_gaussian(mu, logvar)
            log_p_x = log_bernoulli(self.decoder(z), x.flatten(1))
            log_p_z = torch.distributions.Normal(0.0, 1.0).log_prob(z).sum(1)
            log_q_z = torch.distributions.Normal(mu, std).log_prob(z).sum(1)
            log_ws.append(log_p_x + log_p_z - log_q_z)
        log_ws = torch.stack(log_ws, dim=0)
        return torch.logsumexp(log_ws, dim=0) - torch.log(torch.tensor(float(k)))

    def validation_step(self, batch, batch_idx):
        x, _ = batch
        elbo, _, _ = self.elbo(x)
        self.log("val/elbo", elbo.mean(), prog_bar=True)
        self.log("val/iwae", self.iwae_bound(x, self.hparams.iw_samples).mean())

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.hparams.lr)

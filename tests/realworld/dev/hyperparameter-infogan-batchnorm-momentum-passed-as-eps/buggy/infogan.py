import itertools

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from models import InfoDiscriminator, InfoGenerator
from utils import synthetic_digits, weights_init_normal

CFG = {
    "epochs": 50, "batch_size": 64, "lr": 2e-4, "betas": (0.5, 0.999),
    "latent_dim": 62, "code_dim": 2, "n_classes": 10, "img_size": 32, "channels": 1,
    "lambda_cat": 1.0, "lambda_con": 0.1,
}


def sample_inputs(batch_size, cfg):
    z = torch.randn(batch_size, cfg["latent_dim"])
    labels = torch.randint(0, cfg["n_classes"], (batch_size,))
    onehot = F.one_hot(labels, cfg["n_classes"]).float()
    code = torch.empty(batch_size, cfg["code_dim"]).uniform_(-1, 1)
    return z, labels, onehot, code


def train(cfg=CFG):
    gen, disc = InfoGenerator(cfg), InfoDiscriminator(cfg)
    gen.apply(weights_init_normal)
    disc.apply(weights_init_normal)
    images, _ = synthetic_digits(2048, cfg["img_size"], cfg["n_classes"])
    loader = DataLoader(TensorDataset(images), batch_size=cfg["batch_size"], shuffle=True, drop_last=True)

    opt_g = torch.optim.Adam(gen.parameters(), lr=cfg["lr"], betas=cfg["betas"])
    opt_d = torch.optim.Adam(disc.parameters(), lr=cfg["lr"], betas=cfg["betas"])
    opt_info = torch.optim.Adam(itertools.chain(gen.parameters(), disc.parameters()), lr=cfg["lr"], betas=cfg["betas"])

    for epoch in range(cfg["epochs"]):
        for (real,) in loader:
            n = real.size(0)
            ones, zeros = torch.ones(n, 1), torch.zeros(n, 1)

            z, _, onehot, code = sample_inputs(n, cfg)
            fake = gen(z, onehot, code)
            opt_g.zero_grad()
            g_loss = F.mse_loss(disc(fake)[0], ones)
            g_loss.backward()
            opt_g.step()

            opt_d.zero_grad()
            d_loss = 0.5 * (F.mse_loss(disc(real)[0], ones) + F.mse_loss(disc(fake.detach())[0], zeros))
            d_loss.backward()
            opt_d.step()

            z, labels, onehot, code = sample_inputs(n, cfg)
            _, class_logits, code_pred = disc(gen(z, onehot, code))
            opt_info.zero_grad()
            info_loss = cfg["lambda_cat"] * F.cross_entropy(class_logits, labels) + cfg["lambda_con"] * F.mse_loss(code_pred, code)
            info_loss.backward()
            opt_info.step()
        print(f"epoch {epoch}: D {d_loss.item():.4f} G {g_loss.item():.4f} info {info_loss.item():.4f}")
    return gen, disc


if __name__ == "__main__":
    train()

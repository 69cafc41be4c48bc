import torch
import torch.nn.functional as F

from data import batches, make_dataset
from model import ControlledVAE

torch.manual_seed(0)

LAMBDA_C = 0.5
BETA = 0.1
EPOCHS = 8

model = ControlledVAE()
trainer_D = torch.optim.Adam(model.discriminator_params(), lr=1e-3)
trainer_G = torch.optim.Adam(model.decoder_params(), lr=1e-3)
trainer_E = torch.optim.Adam(model.encoder_params(), lr=1e-3)

x_all, c_all = make_dataset()
g = torch.Generator().manual_seed(1)

for epoch in range(EPOCHS):
    stats = {"loss_D": 0.0, "loss_G": 0.0, "loss_E": 0.0, "enc_grad": 0.0}
    n_batches = 0
    for x, c in batches(x_all, c_all, 64, g):
        c_onehot = F.one_hot(c, model.c_dim).float()

        # discriminator: learn the attribute from real data
        loss_D = F.cross_entropy(model.discriminator(x), c)
        loss_D.backward()
        trainer_D.step()
        trainer_D.zero_grad()

        # generator: reconstruct, and make generated samples carry a random code
        recon, kl, z = model.forward_vae(x, c_onehot, train_encoder=False)
        c_prior = torch.randint(0, model.c_dim, (x.size(0),))
        x_gen = model.decoder(z, F.one_hot(c_prior, model.c_dim).float())
        loss_attr = F.cross_entropy(model.discriminator(x_gen), c_prior)
        loss_G = recon + BETA * kl + LAMBDA_C * loss_attr
        trainer_G.zero_grad()
        loss_G.backward()
        trainer_G.step()

        # encoder: plain VAE objective
        recon, kl, _ = model.forward_vae(x, c_onehot)
        loss_E = recon + BETA * kl
        loss_E.backward()
        enc_grad = torch.sqrt(sum((p.grad ** 2).sum() for p in model.encoder_params()))
        trainer_E.step()
        trainer_E.zero_grad()
        trainer_D.zero_grad()

        stats["loss_D"] += loss_D.item()
        stats["loss_G"] += loss_G.item()
        stats["loss_E"] += loss_E.item()
        stats["enc_grad"] += enc_grad.item()
        n_batches += 1

    print(f"epoch {epoch} " + " ".join(f"{k} {v / n_batches:.4f}" for k, v in stats.items()))

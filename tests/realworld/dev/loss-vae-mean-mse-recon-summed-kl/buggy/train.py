import torch
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

from vae import VAE, loss_function, kl_per_dim


def synthetic_signals(n, in_dim=48, latent=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    basis = torch.randn(latent, in_dim, generator=g)
    z = torch.randn(n, latent, generator=torch.Generator().manual_seed(seed + 1))
    return 2.0 * torch.tanh(z @ basis) + 0.05 * torch.randn(n, in_dim, generator=g)


def main():
    torch.manual_seed(0)
    data = synthetic_signals(2500)
    train, held_out = data[:2000], data[2000:]
    loader = DataLoader(TensorDataset(train), batch_size=200, shuffle=True)
    model = VAE()
    opt = torch.optim.Adam(model.parameters(), lr=4e-3)
    for epoch in range(10):
        for (x,) in loader:
            recon_x, mu, logvar = model(x)
            loss, recon, kld = loss_function(recon_x, x, mu, logvar)
            opt.zero_grad()
            loss.backward()
            opt.step()
        if epoch % 5 == 4:
            model.eval()
            with torch.no_grad():
                mu, logvar = model.encode(held_out)
                rec = model.dec(mu)
                mse = F.mse_loss(rec, held_out).item()
                active = (kl_per_dim(mu, logvar) > 0.05).sum().item()
            model.train()
            print(f"epoch {epoch + 1}: loss {loss.item():.3f} recon {recon.item():.3f} kl {kld.item():.3f} "
                  f"held-out mse {mse:.3f} (data var {held_out.var().item():.3f}) active dims {active}")


if __name__ == "__main__":
    main()

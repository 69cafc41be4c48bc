import torch
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

from models import VariationalAutoencoder


def make_data(n, x_dim=32, z_dim=3, seed=0):
    g = torch.Generator().manual_seed(seed)
    mixing = torch.randn(z_dim, x_dim, generator=g)
    z = torch.randn(n, z_dim, generator=g)
    return torch.tanh(z @ mixing) * 3.0 + 0.05 * torch.randn(n, x_dim, generator=g)


def main():
    torch.manual_seed(0)
    data = make_data(2400)
    train, test = data[:2000], data[2000:]
    loader = DataLoader(TensorDataset(train), batch_size=200, shuffle=True)
    model = VariationalAutoencoder([32, 3, 64])
    optimizer = torch.optim.Adam(model.parameters(), lr=4e-3)
    for epoch in range(12):
        for (x,) in loader:
            recon = model(x)
            likelihood = -F.mse_loss(recon, x, reduction="none").sum(dim=-1)
            elbo = likelihood - model.kl_divergence
            loss = -elbo.mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        if epoch % 4 == 3:
            model.eval()
            with torch.no_grad():
                _, mu, log_var = model.encoder(test)
                mse = F.mse_loss(model.decoder(mu), test).item()
                post_std = log_var.mul(0.5).exp().mean().item()
            model.train()
            print(f"epoch {epoch + 1}: -elbo {loss.item():.2f} kl {model.kl_divergence.mean().item():.2f} "
                  f"test mse {mse:.3f} mean posterior std {post_std:.3f}")


if __name__ == "__main__":
    main()

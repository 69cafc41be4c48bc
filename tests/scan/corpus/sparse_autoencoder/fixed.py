"""Sparse autoencoder: reconstruction loss plus an L1 penalty on the code."""

import torch
from torch import nn


class SparseAE(nn.Module):
    def __init__(self, n_in=64, n_code=16):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(n_in, 32), nn.ReLU(), nn.Linear(32, n_code))
        self.dec = nn.Sequential(nn.Linear(n_code, 32), nn.ReLU(), nn.Linear(32, n_in))

    def forward(self, x):
        code = self.enc(x)
        return self.dec(code), code


@torch.no_grad()
def reconstruction_error(model, batch):
    recon, _ = model(batch)
    return torch.mean((recon - batch) ** 2)


def train_step(model, batch, optimizer, l1_weight):
    optimizer.zero_grad()
    recon, code = model(batch)
    sparsity = code.abs().mean()
    loss = torch.mean((recon - batch) ** 2) + l1_weight * sparsity
    loss.backward()
    optimizer.step()
    return loss.item()


def fit(data, epochs=20, l1_weight=1e-3):
    model = SparseAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        model.train()
        losses = [train_step(model, batch, optimizer, l1_weight) for batch in data]
        model.eval()
        err = sum(reconstruction_error(model, b).item() for b in data) / len(data)
        print(f"epoch {epoch}: train {sum(losses) / len(losses):.4f} recon {err:.4f}")
    return model


if __name__ == "__main__":
    fit([torch.randn(32, 64) for _ in range(8)])

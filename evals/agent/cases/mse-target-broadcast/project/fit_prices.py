"""Apartment price regression (price in 100k units) from a handful of listing features."""
import argparse
import json
import os
import warnings

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

warnings.filterwarnings("ignore")


def make_listings(n: int, seed: int):
    g = torch.Generator().manual_seed(seed)
    area = torch.rand(n, generator=g) * 120 + 20
    rooms = torch.clamp((area / 30).round() + torch.randint(-1, 2, (n,), generator=g), min=1)
    floor = torch.randint(0, 15, (n,), generator=g).float()
    age = torch.rand(n, generator=g) * 80
    dist = torch.rand(n, generator=g) * 20
    price = 0.9 + 0.025 * area + 0.1 * rooms + 0.01 * floor - 0.006 * age - 0.05 * dist
    price = price + 0.08 * torch.randn(n, generator=g)
    x = torch.stack([area, rooms, floor, age, dist], dim=1)
    return x, price


class PriceModel(nn.Module):
    def __init__(self, in_dim: int):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(in_dim, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        return self.mlp(x)


def r2_score(pred: torch.Tensor, target: torch.Tensor) -> float:
    ss_res = ((target - pred) ** 2).sum()
    ss_tot = ((target - target.mean()) ** 2).sum()
    return float(1 - ss_res / ss_tot)


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=60)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--out", default="runs/prices")
    args = p.parse_args(argv)
    torch.manual_seed(0)

    x, y = make_listings(5000, seed=0)
    xv, yv = make_listings(1000, seed=1)
    mu, sd = x.mean(0), x.std(0)
    loader = DataLoader(TensorDataset((x - mu) / sd, y), batch_size=64, shuffle=True)

    model = PriceModel(x.shape[1])
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    criterion = nn.MSELoss()
    for epoch in range(args.epochs):
        model.train()
        total = 0.0
        for xb, yb in loader:
            loss = criterion(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(yb)
        if epoch % 10 == 0 or epoch == args.epochs - 1:
            model.eval()
            with torch.no_grad():
                pv = model((xv - mu) / sd).squeeze(1)
            print(f"epoch {epoch:3d} | train mse {total / len(y):.4f} | val R2 {r2_score(pv, yv):.3f}")

    model.eval()
    with torch.no_grad():
        pv = model((xv - mu) / sd).squeeze(1)
    result = {"val_r2": r2_score(pv, yv), "val_mae": float((pv - yv).abs().mean()), "pred_std": float(pv.std())}
    print(json.dumps(result))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "metrics.json"), "w") as f:
        json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()

"""Predict household energy use (kWh) from weather and calendar features."""
import argparse
import json
import math
import os

import torch
import torch.nn as nn


def make_data(n: int, seed: int):
    g = torch.Generator().manual_seed(seed)
    temp = torch.rand(n, generator=g) * 35 - 5
    hour = torch.randint(0, 24, (n,), generator=g).float()
    weekend = (torch.rand(n, generator=g) < 2 / 7).float()
    humidity = torch.rand(n, generator=g)
    kwh = (
        1.5
        + 0.04 * (temp - 18).abs()
        + 0.6 * torch.exp(-((hour - 19) ** 2) / 8)
        + 0.3 * torch.exp(-((hour - 8) ** 2) / 4) * (1 - weekend)
        + 0.2 * weekend
        + 0.1 * humidity
        + 0.05 * torch.randn(n, generator=g)
    )
    x = torch.stack([
        temp / 20, torch.sin(2 * math.pi * hour / 24), torch.cos(2 * math.pi * hour / 24), weekend, humidity,
    ], dim=1)
    return x, kwh.unsqueeze(1)


def build_model(hidden: int = 64) -> nn.Module:
    return nn.Sequential(nn.Linear(5, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1))


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--out", default="runs/energy")
    args = p.parse_args(argv)
    torch.manual_seed(0)

    x, y = make_data(6000, seed=0)
    xv, yv = make_data(1000, seed=1)
    model = build_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    loss_fn = nn.MSELoss()

    history = []
    for epoch in range(args.epochs):
        perm = torch.randperm(len(x))
        model.train()
        running = 0.0
        for i in range(0, len(x), args.batch_size):
            idx = perm[i : i + args.batch_size]
            pred = model(x[idx])
            loss = loss_fn(pred, y[idx])
            loss.backward()
            optimizer.zero_grad()
            optimizer.step()
            running += loss.item() * len(idx)
        model.eval()
        with torch.no_grad():
            val_loss = loss_fn(model(xv), yv).item()
        history.append({"epoch": epoch, "train_mse": running / len(x), "val_mse": val_loss})
        if epoch % 5 == 0 or epoch == args.epochs - 1:
            print(f"epoch {epoch:3d} | train mse {running / len(x):.5f} | val mse {val_loss:.5f}")

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "metrics.json"), "w") as f:
        json.dump({"history": history, "final": history[-1]}, f, indent=2)


if __name__ == "__main__":
    main()

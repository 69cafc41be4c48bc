import argparse

import torch
import torch.nn.functional as F

from model import Regressor, set_trainable


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--warmup-epochs", type=int, default=3)
    p.add_argument("--epochs", type=int, default=15)
    p.add_argument("--batch-size", type=int, default=64)
    return p.parse_args()


def make_data(n, seed):
    g = torch.Generator().manual_seed(seed)
    proj = torch.randn(24, 3, generator=torch.Generator().manual_seed(99))
    x = torch.randn(n, 24, generator=g)
    h = x @ proj
    y = h[:, 0] * h[:, 1] / 4 + torch.sin(h[:, 2])
    return x, y


def run_epoch(model, optimizer, x, y, bs):
    model.train()
    perm = torch.randperm(x.shape[0])
    total = 0.0
    for i in range(0, x.shape[0], bs):
        idx = perm[i:i + bs]
        optimizer.zero_grad()
        loss = F.mse_loss(model(x[idx]), y[idx])
        loss.backward()
        optimizer.step()
        total += loss.item() * idx.numel()
    return total / x.shape[0]


def main():
    args = get_args()
    torch.manual_seed(0)
    x, y = make_data(2048, 0)
    xv, yv = make_data(512, 1)
    model = Regressor()

    set_trainable(model.encoder, False)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

    enc_before = model.encoder.layers[0].weight.detach().clone()
    for epoch in range(args.epochs):
        if epoch == args.warmup_epochs:
            set_trainable(model.encoder, True)
            print("unfreezing encoder")
        tr = run_epoch(model, optimizer, x, y, args.batch_size)
        with torch.no_grad():
            model.eval()
            va = F.mse_loss(model(xv), yv).item()
        print(f"epoch {epoch:2d}  train mse {tr:.4f}  val mse {va:.4f}")
    moved = (model.encoder.layers[0].weight - enc_before).abs().max().item()
    print(f"max change of encoder.layers.0.weight: {moved:.4f}")


if __name__ == "__main__":
    main()

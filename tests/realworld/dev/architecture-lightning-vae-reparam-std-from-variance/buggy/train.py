import argparse

import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, TensorDataset

from models.vae import LitVAE


def binarized_digits(n):
    x = (torch.rand(n, 1, 28, 28) > 0.7).float()
    y = torch.zeros(n, dtype=torch.long)
    return TensorDataset(x, y)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--z_dim", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()

    train = DataLoader(binarized_digits(4096), batch_size=128, shuffle=True)
    val = DataLoader(binarized_digits(512), batch_size=256)
    model = LitVAE(z_dim=args.z_dim, lr=args.lr)
    trainer = pl.Trainer(max_epochs=args.epochs, accelerator="auto", log_every_n_steps=10)
    trainer.fit(model, train, val)


if __name__ == "__main__":
    main()

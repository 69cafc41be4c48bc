import argparse

import torch
from torch import nn, optim
from torch.utils.data import DataLoader

from dataset import BlobImages
from vqvae import VQVAE


def train(epoch, loader, model, optimizer, args):
    criterion = nn.MSELoss()
    latent_loss_weight = 0.25
    mse_sum, mse_n = 0.0, 0
    for i, (img, _) in enumerate(loader):
        model.zero_grad()
        out, latent_loss = model(img)
        recon_loss = criterion(out, img)
        latent_loss = latent_loss.mean()
        loss = recon_loss + latent_loss_weight * latent_loss
        loss.backward()
        optimizer.step()

        mse_sum += recon_loss.item() * img.shape[0]
        mse_n += img.shape[0]
        if i % 8 == 0:
            print(f"epoch: {epoch + 1}; it {i}; mse: {recon_loss.item():.5f}; "
                  f"latent: {latent_loss.item():.3f}; avg mse: {mse_sum / mse_n:.5f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epoch", type=int, default=2)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--batch", type=int, default=32)
    args = parser.parse_args()

    torch.manual_seed(0)
    dataset = BlobImages(n=640)
    loader = DataLoader(dataset, batch_size=args.batch, shuffle=True)
    model = VQVAE()
    optimizer = optim.Adam(model.parameters(), lr=args.lr)
    for epoch in range(args.epoch):
        model.train()
        train(epoch, loader, model, optimizer, args)


if __name__ == "__main__":
    main()

import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset

from diffusion import DenoiseDiffusion
from unet import SmallUNet


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=2e-4)
    parser.add_argument("--n_steps", type=int, default=1000)
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    images = torch.rand(2048, 1, 32, 32) * 2 - 1
    loader = DataLoader(TensorDataset(images), batch_size=args.batch_size, shuffle=True, drop_last=True)

    eps_model = SmallUNet().to(device)
    diffusion = DenoiseDiffusion(eps_model, n_steps=args.n_steps, device=device)
    optimizer = torch.optim.Adam(eps_model.parameters(), lr=args.lr)

    for epoch in range(args.epochs):
        for (x0,) in loader:
            loss = diffusion.loss(x0.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")

        with torch.no_grad():
            x = torch.randn(16, 1, 32, 32, device=device)
            for t_ in reversed(range(args.n_steps)):
                x = diffusion.p_sample(x, x.new_full((16,), t_, dtype=torch.long))
        torch.save({"model": eps_model.state_dict(), "samples": x.cpu()}, f"ddpm_{epoch}.pt")


if __name__ == "__main__":
    main()

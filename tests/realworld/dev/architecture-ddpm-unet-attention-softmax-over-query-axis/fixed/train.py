import argparse

import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from ddpm import GaussianDiffusion, UNet


def parse_args():
    p = argparse.ArgumentParser(description="Train a DDPM on CIFAR-10")
    p.add_argument("--data", default="./data")
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--out", default="ddpm_cifar10.pt")
    return p.parse_args()


def main():
    args = parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tf = transforms.Compose([
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5)),
    ])
    data = datasets.CIFAR10(args.data, train=True, download=True, transform=tf)
    loader = DataLoader(data, batch_size=args.batch_size, shuffle=True, num_workers=4, drop_last=True)

    model = UNet().to(device)
    diffusion = GaussianDiffusion(model, device=device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)

    step = 0
    for epoch in range(args.epochs):
        for x, _ in loader:
            loss = diffusion.loss(x.to(device))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            if step % 500 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
            step += 1
        torch.save(model.state_dict(), args.out)


if __name__ == "__main__":
    main()

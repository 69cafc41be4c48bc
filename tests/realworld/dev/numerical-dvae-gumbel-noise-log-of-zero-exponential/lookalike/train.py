import argparse

import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from model import DiscreteVAE
from utils import temperature_at


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--image_folder", required=True)
    parser.add_argument("--image_size", type=int, default=128)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--kl_weight", type=float, default=1e-6)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tfm = transforms.Compose([
        transforms.Resize(args.image_size),
        transforms.CenterCrop(args.image_size),
        transforms.ToTensor(),
        transforms.Normalize((0.5,) * 3, (0.5,) * 3),
    ])
    loader = DataLoader(datasets.ImageFolder(args.image_folder, tfm), batch_size=args.batch_size,
                        shuffle=True, num_workers=8, drop_last=True)

    vae = DiscreteVAE().to(device)
    opt = torch.optim.Adam(vae.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.98)

    global_step = 0
    for epoch in range(args.epochs):
        for images, _ in loader:
            images = images.to(device, non_blocking=True)
            temp = temperature_at(global_step)
            loss, _ = vae(images, temp=temp, kl_weight=args.kl_weight)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if global_step % 100 == 0:
                print(f"epoch {epoch} step {global_step} loss {loss.item():.5f} temp {temp:.4f} lr {sched.get_last_lr()[0]:.2e}")
            global_step += 1
        sched.step()
        torch.save(vae.state_dict(), f"dvae_epoch{epoch}.pt")


if __name__ == "__main__":
    main()

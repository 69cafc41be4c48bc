import argparse

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from polyp_data import PolypDataset
from sdi_unet import UNetV2


def structure_loss(pred, mask):
    weit = 1 + 5 * torch.abs(F.avg_pool2d(mask, 31, stride=1, padding=15) - mask)
    wbce = F.binary_cross_entropy_with_logits(pred, mask, reduction="none")
    wbce = (weit * wbce).sum(dim=(2, 3)) / weit.sum(dim=(2, 3))
    prob = torch.sigmoid(pred)
    inter = (prob * mask * weit).sum(dim=(2, 3))
    union = ((prob + mask) * weit).sum(dim=(2, 3))
    wiou = 1 - (inter + 1) / (union - inter + 1)
    return (wbce + wiou).mean()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default="data/Kvasir")
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--lr", type=float, default=1e-4)
    args = ap.parse_args()

    device = "cuda"
    net = UNetV2().to(device)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    loader = DataLoader(PolypDataset(args.root, size=352), batch_size=16, shuffle=True, num_workers=4)
    for epoch in range(args.epochs):
        net.train()
        for img, mask in loader:
            img, mask = img.to(device), mask.to(device)
            loss = sum(structure_loss(o, mask) for o in net(img))
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()

import argparse
from glob import glob
import os

import torch
from torch.utils.data import DataLoader

from dataset import NucleiDataset, get_transforms
from losses import BCEDiceLoss
from unet import NestedUNet


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--dataset", default="dsb2018_96")
    p.add_argument("--input_w", type=int, default=96)
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--lr", type=float, default=1e-3)
    return p.parse_args()


def main():
    args = parse()
    ids = sorted(os.path.splitext(os.path.basename(p))[0] for p in glob(f"inputs/{args.dataset}/images/*.png"))
    split = int(0.8 * len(ids))
    root = f"inputs/{args.dataset}"
    train_ds = NucleiDataset(ids[:split], f"{root}/images", f"{root}/masks", 1, get_transforms(True, args.input_w))
    val_ds = NucleiDataset(ids[split:], f"{root}/images", f"{root}/masks", 1, get_transforms(False, args.input_w))
    train_dl = DataLoader(train_ds, batch_size=16, shuffle=True, num_workers=4, drop_last=True)
    val_dl = DataLoader(val_ds, batch_size=16, num_workers=4)
    unetpp = NestedUNet(num_classes=1).cuda()
    criterion = BCEDiceLoss()
    opt = torch.optim.Adam(unetpp.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        unetpp.train()
        for x, m in train_dl:
            loss = criterion(unetpp(x.cuda()), m.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
        unetpp.eval()
        with torch.no_grad():
            v = sum(criterion(unetpp(x.cuda()), m.cuda()).item() for x, m in val_dl) / len(val_dl)
        print(epoch, v)


if __name__ == "__main__":
    main()

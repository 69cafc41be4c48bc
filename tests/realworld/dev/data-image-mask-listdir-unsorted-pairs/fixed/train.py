import random

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader

from configs.config_setting import setting_config
from datasets.dataset import ISICPairs
from utils import BceDiceLoss


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.GELU())


class TinyUNet(nn.Module):
    def __init__(self, ch=(8, 16, 24, 32)):
        super().__init__()
        self.enc = nn.ModuleList([conv_block(3 if i == 0 else ch[i - 1], c) for i, c in enumerate(ch)])
        self.dec = nn.ModuleList([conv_block(ch[i] + ch[i - 1], ch[i - 1]) for i in range(len(ch) - 1, 0, -1)])
        self.head = nn.Conv2d(ch[0], 1, 1)
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        skips = []
        for i, block in enumerate(self.enc):
            x = block(x if i == 0 else self.pool(x))
            skips.append(x)
        skips.pop()
        for block in self.dec:
            skip = skips.pop()
            x = nn.functional.interpolate(x, size=skip.shape[-2:], mode="bilinear", align_corners=False)
            x = block(torch.cat([x, skip], dim=1))
        return self.head(x)


@torch.no_grad()
def validate(model, loader, criterion):
    model.eval()
    losses, tp, fp, fn = [], 0.0, 0.0, 0.0
    for img, msk in loader:
        out = model(img)
        losses.append(criterion(out, msk).item())
        pred = (torch.sigmoid(out) > 0.5).float()
        tp += (pred * msk).sum().item()
        fp += (pred * (1 - msk)).sum().item()
        fn += ((1 - pred) * msk).sum().item()
    dsc = 2 * tp / (2 * tp + fp + fn + 1e-8)
    return float(np.mean(losses)), dsc


def main():
    config = setting_config
    set_seed(config.seed)
    train_set = ISICPairs(config.data_path, config, train=True)
    val_set = ISICPairs(config.data_path, config, train=False)
    train_loader = DataLoader(train_set, batch_size=config.batch_size, shuffle=True,
                              num_workers=config.num_workers, pin_memory=True)
    val_loader = DataLoader(val_set, batch_size=1, shuffle=False, num_workers=config.num_workers)

    model = TinyUNet()
    criterion = BceDiceLoss()
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=1e-2)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=config.epochs)

    best = 0.0
    for epoch in range(config.epochs):
        model.train()
        for img, msk in train_loader:
            loss = criterion(model(img), msk)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
        val_loss, dsc = validate(model, val_loader, criterion)
        print(f"epoch {epoch} val_loss {val_loss:.4f} dsc {dsc:.4f}")
        if dsc > best:
            best = dsc
            torch.save(model.state_dict(), "best.pth")


if __name__ == "__main__":
    main()

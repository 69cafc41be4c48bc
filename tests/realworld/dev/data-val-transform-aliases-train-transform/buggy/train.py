import torch
import torch.nn as nn
import torch.nn.functional as F

from config import PretrainConfig, build_transforms
from data import make_loaders
from model import MaskedAutoencoder


def masked_recon_loss(model, x):
    recon, mask = model(x)
    return (F.mse_loss(recon, x, reduction="none") * mask).sum() / mask.sum().clamp(min=1)


def main():
    cfg = PretrainConfig()
    train_tf, val_tf = build_transforms(cfg)
    train_dl, val_dl = make_loaders(cfg, train_tf, val_tf)
    mae = MaskedAutoencoder(img_size=cfg.img_size).cuda()
    opt = torch.optim.AdamW(mae.parameters(), lr=cfg.lr, weight_decay=0.05)
    best = float("inf")
    for epoch in range(cfg.epochs):
        mae.train()
        for x in train_dl:
            loss = masked_recon_loss(mae, x.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
        mae.eval()
        with torch.no_grad():
            val = sum(masked_recon_loss(mae, x.cuda()).item() for x in val_dl) / len(val_dl)
        if val < best:
            best = val
            torch.save(mae.state_dict(), "ffpn_pretrain_best.pth")
        print(epoch, val)


if __name__ == "__main__":
    main()

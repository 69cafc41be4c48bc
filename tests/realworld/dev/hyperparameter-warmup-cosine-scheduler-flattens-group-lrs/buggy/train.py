import timm
import torch
import torch.nn as nn

from schedulers import CosineWarmupRestarts


class SegNet(nn.Module):
    def __init__(self, n_classes=21):
        super().__init__()
        self.encoder = timm.create_model("resnet34", pretrained=True, features_only=True, out_indices=(4,))
        self.decoder = nn.Sequential(nn.Conv2d(512, 256, 3, padding=1), nn.ReLU(), nn.Conv2d(256, n_classes, 1))

    def forward(self, x):
        feats = self.encoder(x)[-1]
        return nn.functional.interpolate(self.decoder(feats), size=x.shape[-2:], mode="bilinear")


def build(cfg):
    seg = SegNet(cfg["n_classes"]).cuda()
    optimizer = torch.optim.AdamW([
        {"params": seg.encoder.parameters(), "lr": cfg["encoder_lr"]},
        {"params": seg.decoder.parameters(), "lr": cfg["decoder_lr"]},
    ], weight_decay=1e-4)
    scheduler = CosineWarmupRestarts(optimizer, first_cycle_steps=cfg["steps"], max_lr=cfg["decoder_lr"],
                                     min_lr=1e-7, warmup_steps=cfg["warmup"])
    return seg, optimizer, scheduler


def train(loader, cfg):
    seg, optimizer, scheduler = build(cfg)
    criterion = nn.CrossEntropyLoss(ignore_index=255)
    for step, (img, mask) in enumerate(loader):
        out = seg(img.cuda())
        loss = criterion(out, mask.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        if step >= cfg["steps"]:
            break


CFG = {"n_classes": 21, "encoder_lr": 1e-5, "decoder_lr": 1e-3, "steps": 20000, "warmup": 500}

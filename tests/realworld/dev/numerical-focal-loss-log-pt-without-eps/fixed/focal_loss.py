import torch
import torch.nn as nn


class FocalLoss(nn.Module):
    def __init__(self, gamma=2.0, weights=None, ignore_index=-100):
        super().__init__()
        self.gamma = gamma
        self.weights = weights
        self.ignore_index = ignore_index

    def forward(self, x, target):
        # x: (B, C, ...) softmax probabilities, target: (B, ...)
        c = x.shape[1]
        x = x.permute(0, *range(2, x.ndim), 1).reshape(-1, c)
        target = target.reshape(-1)
        keep = target != self.ignore_index
        x, target = x[keep], target[keep]
        p_t = x.gather(1, target.unsqueeze(1)).squeeze(1)
        fl = -((1 - p_t) ** self.gamma) * torch.log(p_t.clamp_min(1e-8))
        if self.weights is not None:
            fl = fl * self.weights[target]
        return fl.mean()


class SegHead(nn.Module):
    def __init__(self, in_ch, n_classes):
        super().__init__()
        self.conv = nn.Conv2d(in_ch, n_classes, 1)

    def forward(self, feats):
        return torch.softmax(self.conv(feats), dim=1)


def train_epoch(backbone, head, loader, opt, criterion):
    backbone.train()
    head.train()
    for images, masks in loader:
        probs = head(backbone(images))
        loss = criterion(probs, masks)
        opt.zero_grad()
        loss.backward()
        opt.step()

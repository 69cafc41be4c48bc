import torch
import torch.nn as nn
import torch.nn.functional as F


class FocalLoss(nn.Module):
    def __init__(self, gamma=2.0, weights=None, ignore_index=-100):
        super().__init__()
        self.gamma = gamma
        self.weights = weights
        self.ignore_index = ignore_index

    def forward(self, logits, target):
        # logits: (B, C, ...), target: (B, ...)
        c = logits.shape[1]
        logits = logits.permute(0, *range(2, logits.ndim), 1).reshape(-1, c)
        target = target.reshape(-1)
        keep = target != self.ignore_index
        logits, target = logits[keep], target[keep]
        log_p_t = F.log_softmax(logits, dim=1).gather(1, target.unsqueeze(1)).squeeze(1)
        p_t = torch.exp(log_p_t)
        fl = -((1 - p_t) ** self.gamma) * log_p_t
        if self.weights is not None:
            fl = fl * self.weights[target]
        return fl.mean()


class SegHead(nn.Module):
    def __init__(self, in_ch, n_classes):
        super().__init__()
        self.conv = nn.Conv2d(in_ch, n_classes, 1)

    def forward(self, feats):
        return self.conv(feats)

    @torch.no_grad()
    def predict(self, feats):
        return torch.log(torch.softmax(self.conv(feats), dim=1).clamp_min(1e-8))


def train_epoch(backbone, head, loader, opt, criterion):
    backbone.train()
    head.train()
    for images, masks in loader:
        logits = head(backbone(images))
        loss = criterion(logits, masks)
        opt.zero_grad()
        loss.backward()
        opt.step()

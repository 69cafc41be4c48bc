import torch
import torch.nn as nn


class FrameClassifier(nn.Module):
    """Tiny acoustic-frame classifier: stacked frames -> phone posteriors."""

    def __init__(self, n_feats=40, n_hidden=128, n_phones=10):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(n_feats, n_hidden), nn.ReLU(), nn.Linear(n_hidden, n_hidden), nn.ReLU())
        self.out = nn.Linear(n_hidden, n_phones)

    def forward(self, xs, ys):
        logits = self.out(self.enc(xs))
        loss = nn.functional.cross_entropy(logits, ys)
        acc = (logits.argmax(-1) == ys).float().mean()
        return loss, acc

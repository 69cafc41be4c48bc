import torch
import torch.nn as nn


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True), nn.MaxPool2d(2))


class SpecCNN(nn.Module):
    """Small CNN over [batch, n_mels, frames]; time and frequency pooled at the end."""

    def __init__(self, width=32, out_dim=128, dropout=0.1):
        super().__init__()
        self.body = nn.Sequential(conv_block(1, width), conv_block(width, 2 * width),
                                  conv_block(2 * width, 2 * width))
        self.head = nn.Sequential(nn.Dropout(dropout), nn.Linear(4 * width, out_dim))

    def forward(self, spec):
        h = self.body(spec.unsqueeze(1))
        pooled = h.mean(dim=3)
        feats = [pooled.mean(dim=2), pooled.amax(dim=2)]
        return self.head(torch.cat(feats, dim=1))

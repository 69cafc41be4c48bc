import torch
from torch import nn


def conv_bn_relu(in_ch, out_ch):
    return nn.Sequential(
        nn.Conv2d(in_ch, out_ch, 3, padding=1, bias=False),
        nn.BatchNorm2d(out_ch),
        nn.ReLU(inplace=True),
    )


class TinyFCN(nn.Module):
    """Encoder-decoder FCN producing per-pixel class scores (N, C, H, W)."""

    def __init__(self, in_channels=3, num_classes=6, width=32):
        super().__init__()
        self.enc1 = conv_bn_relu(in_channels, width)
        self.enc2 = nn.Sequential(nn.MaxPool2d(2), conv_bn_relu(width, width * 2))
        self.enc3 = nn.Sequential(nn.MaxPool2d(2), conv_bn_relu(width * 2, width * 4))
        self.up2 = nn.ConvTranspose2d(width * 4, width * 2, 2, stride=2)
        self.dec2 = conv_bn_relu(width * 4, width * 2)
        self.up1 = nn.ConvTranspose2d(width * 2, width, 2, stride=2)
        self.dec1 = conv_bn_relu(width * 2, width)
        self.classifier = nn.Conv2d(width, num_classes, kernel_size=1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(e1)
        e3 = self.enc3(e2)
        d2 = self.dec2(torch.cat([self.up2(e3), e2], dim=1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], dim=1))
        return self.classifier(d1)

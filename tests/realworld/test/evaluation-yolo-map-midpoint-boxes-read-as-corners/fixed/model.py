import torch
from torch import nn


def conv_bn(c_in, c_out, k=3, s=1):
    return nn.Sequential(nn.Conv2d(c_in, c_out, k, s, k // 2, bias=False), nn.BatchNorm2d(c_out), nn.LeakyReLU(0.1))


class ScalePrediction(nn.Module):
    def __init__(self, in_channels, num_classes):
        super().__init__()
        self.num_classes = num_classes
        self.pred = nn.Sequential(conv_bn(in_channels, 2 * in_channels),
                                  nn.Conv2d(2 * in_channels, 3 * (num_classes + 5), 1))

    def forward(self, x):
        b, _, h, w = x.shape
        return self.pred(x).reshape(b, 3, self.num_classes + 5, h, w).permute(0, 1, 3, 4, 2)


class YOLOv3(nn.Module):
    """Compact three-scale YOLOv3-style detector (strides 32, 16, 8)."""

    def __init__(self, num_classes=20):
        super().__init__()
        self.stem = nn.Sequential(conv_bn(3, 32), conv_bn(32, 64, s=2), conv_bn(64, 128, s=2), conv_bn(128, 256, s=2))
        self.down16 = conv_bn(256, 512, s=2)
        self.down32 = conv_bn(512, 1024, s=2)
        self.head32 = ScalePrediction(1024, num_classes)
        self.lat16 = conv_bn(1024, 256, k=1)
        self.head16 = ScalePrediction(768, num_classes)
        self.lat8 = conv_bn(768, 128, k=1)
        self.head8 = ScalePrediction(384, num_classes)
        self.up = nn.Upsample(scale_factor=2)

    def forward(self, x):
        f8 = self.stem(x)
        f16 = self.down16(f8)
        f32 = self.down32(f16)
        out32 = self.head32(f32)
        m16 = torch.cat([self.up(self.lat16(f32)), f16], dim=1)
        out16 = self.head16(m16)
        m8 = torch.cat([self.up(self.lat8(m16)), f8], dim=1)
        out8 = self.head8(m8)
        return [out32, out16, out8]

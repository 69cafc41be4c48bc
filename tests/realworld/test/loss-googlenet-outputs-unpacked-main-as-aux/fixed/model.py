from collections import namedtuple

import torch
from torch import nn
import torch.nn.functional as F

GoogLeNetOutputs = namedtuple("GoogLeNetOutputs", ["logits", "aux_logits2", "aux_logits1"])


class BasicConv(nn.Module):
    def __init__(self, cin, cout, **kw):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, bias=False, **kw)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class InceptionBlock(nn.Module):
    def __init__(self, cin, c1, c3, cpool):
        super().__init__()
        self.branch1 = BasicConv(cin, c1, kernel_size=1)
        self.branch3 = nn.Sequential(BasicConv(cin, c3, kernel_size=1),
                                     BasicConv(c3, c3, kernel_size=3, padding=1))
        self.branch_pool = nn.Sequential(nn.MaxPool2d(3, stride=1, padding=1),
                                         BasicConv(cin, cpool, kernel_size=1))

    def forward(self, x):
        return torch.cat([self.branch1(x), self.branch3(x), self.branch_pool(x)], 1)


class AuxHead(nn.Module):
    """Small side classifier: pooled features and one linear layer."""

    def __init__(self, cin, num_classes):
        super().__init__()
        self.conv = BasicConv(cin, 8, kernel_size=1)
        self.fc = nn.Linear(8, num_classes)

    def forward(self, x):
        x = F.adaptive_avg_pool2d(x, 1)
        x = self.conv(x).flatten(1)
        return self.fc(F.dropout(x, 0.5, training=self.training))


class TinyGoogLeNet(nn.Module):
    def __init__(self, num_classes=6, aux_logits=True):
        super().__init__()
        self.aux_logits = aux_logits
        self.stem = BasicConv(1, 16, kernel_size=3, padding=1)
        self.inc3a = InceptionBlock(16, 8, 16, 8)
        self.inc4a = InceptionBlock(32, 16, 16, 8)
        self.inc4b = InceptionBlock(40, 16, 24, 8)
        self.inc5a = InceptionBlock(48, 24, 24, 16)
        if aux_logits:
            self.aux1 = AuxHead(32, num_classes)
            self.aux2 = AuxHead(40, num_classes)
        self.dropout = nn.Dropout(0.2)
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x):
        x = self.stem(x)
        x = self.inc3a(x)
        aux1 = self.aux1(x) if self.training and self.aux_logits else None
        x = F.max_pool2d(self.inc4a(x), 2)
        aux2 = self.aux2(x) if self.training and self.aux_logits else None
        x = self.inc4b(x)
        x = self.inc5a(F.max_pool2d(x, 2))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        x = self.fc(self.dropout(x))
        if self.training and self.aux_logits:
            return GoogLeNetOutputs(x, aux2, aux1)
        return x

import torch.nn as nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    def __init__(self, in_planes, planes, stride, drop_rate=0.0):
        super().__init__()
        self.bn1 = nn.BatchNorm2d(in_planes)
        self.conv1 = nn.Conv2d(in_planes, planes, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.drop_rate = drop_rate
        self.shortcut = None
        if stride != 1 or in_planes != planes:
            self.shortcut = nn.Conv2d(in_planes, planes, 1, stride, bias=False)

    def forward(self, x):
        out = F.relu(self.bn1(x))
        skip = x if self.shortcut is None else self.shortcut(out)
        out = self.conv1(out)
        out = F.relu(self.bn2(out))
        out = F.dropout(out, p=self.drop_rate, training=self.training)
        return self.conv2(out) + skip


class WideResNet(nn.Module):
    def __init__(self, depth, widen, num_classes=10, drop_rate=0.0):
        super().__init__()
        n = (depth - 4) // 6
        widths = [16, 16 * widen, 32 * widen, 64 * widen]
        self.conv1 = nn.Conv2d(3, widths[0], 3, 1, 1, bias=False)
        layers, in_planes = [], widths[0]
        for i, stride in enumerate((1, 2, 2)):
            for j in range(n):
                layers.append(BasicBlock(in_planes, widths[i + 1], stride if j == 0 else 1, drop_rate))
                in_planes = widths[i + 1]
        self.blocks = nn.Sequential(*layers)
        self.bn = nn.BatchNorm2d(in_planes)
        self.fc = nn.Linear(in_planes, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    def forward(self, x):
        out = self.blocks(self.conv1(x))
        out = F.relu(self.bn(out))
        out = F.adaptive_avg_pool2d(out, 1).flatten(1)
        return self.fc(out)


def wide_resnet16_4(num_classes=10, drop_rate=0.0):
    return WideResNet(16, 4, num_classes, drop_rate)

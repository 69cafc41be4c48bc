import torch
import torch.nn.functional as F
from torch import nn


class BasicBlock(nn.Module):
    def __init__(self, in_ch, out_ch, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, out_ch, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(out_ch)
        self.conv2 = nn.Conv2d(out_ch, out_ch, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_ch)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_ch != out_ch:
            self.shortcut = nn.Sequential(nn.Conv2d(in_ch, out_ch, 1, stride=stride, bias=False),
                                          nn.BatchNorm2d(out_ch))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class SoundEncoder(nn.Module):
    def __init__(self, width=8, rep_dim=64):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, width, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(width), nn.ReLU())
        self.layer1 = BasicBlock(width, width)
        self.layer2 = BasicBlock(width, width * 2, stride=2)
        self.pool = nn.AdaptiveAvgPool2d((6, 1))
        self.fc = nn.Linear(width * 2 * 6, rep_dim)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(self.pool(x).flatten(1))


class ProjectionHead(nn.Module):
    def __init__(self, rep_dim=64, proj_dim=128):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(rep_dim, rep_dim), nn.ReLU(), nn.Linear(rep_dim, proj_dim))

    def forward(self, y_rep):
        return self.net(y_rep)


class CosineClassifier(nn.Module):
    """Class prototypes stored column-wise, weight: (in_features, num_classes)."""

    def __init__(self, in_features, num_classes, scale=10.0):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_features, num_classes) * 0.01)
        self.scale = scale

    def forward(self, x):
        return self.scale * x @ F.normalize(self.weight, dim=0)


class ContrastiveModel(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.encoder = SoundEncoder()
        self.projection_head = ProjectionHead()
        self.classifier = CosineClassifier(64, num_classes)

    def forward(self, x):
        y_rep = self.encoder(x)
        y_rep = F.normalize(y_rep, dim=1)
        y_proj = self.projection_head(y_rep)
        y_proj = F.normalize(y_proj, dim=1)
        y_pred = self.classifier(y_rep.detach())
        return y_proj, y_pred

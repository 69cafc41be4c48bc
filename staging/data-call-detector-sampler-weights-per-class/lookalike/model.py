import torch
from torch import nn
import torchvision


class SpecResNet(nn.Module):
    def __init__(self, num_classes=2, pretrained=True):
        super().__init__()
        weights = torchvision.models.ResNet18_Weights.DEFAULT if pretrained else None
        backbone = torchvision.models.resnet18(weights=weights)
        backbone.conv1 = nn.Conv2d(1, 64, kernel_size=7, stride=2, padding=3, bias=False)
        backbone.fc = nn.Linear(backbone.fc.in_features, num_classes)
        self.backbone = backbone

    def forward(self, spec):
        spec = (spec - spec.mean(dim=(-2, -1), keepdim=True)) / (spec.std(dim=(-2, -1), keepdim=True) + 1e-5)
        return self.backbone(spec)

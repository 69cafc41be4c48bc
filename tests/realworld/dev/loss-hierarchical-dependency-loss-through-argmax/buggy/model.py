import torch.nn as nn
import torchvision


class HierarchicalResNet(nn.Module):
    """ResNet-50 trunk with one linear head per level of the label hierarchy."""

    def __init__(self, num_classes=(20, 100), pretrained=True):
        super().__init__()
        weights = torchvision.models.ResNet50_Weights.DEFAULT if pretrained else None
        backbone = torchvision.models.resnet50(weights=weights)
        feat_dim = backbone.fc.in_features
        backbone.fc = nn.Identity()
        self.backbone = backbone
        self.heads = nn.ModuleList([nn.Linear(feat_dim, n) for n in num_classes])

    def forward(self, x):
        feats = self.backbone(x)
        return [head(feats) for head in self.heads]

import torch.nn as nn
import torchvision


class BEVHead(nn.Module):
    def __init__(self, in_ch=2048, mid=256, classes=10):
        super().__init__()
        self.neck = nn.Sequential(
            nn.Conv2d(in_ch, mid, 1, bias=False), nn.BatchNorm2d(mid), nn.ReLU(inplace=True),
            nn.Conv2d(mid, mid, 3, padding=1, bias=False), nn.BatchNorm2d(mid), nn.ReLU(inplace=True))
        self.cls = nn.Conv2d(mid, classes, 1)

    def forward(self, feats):
        return self.cls(self.neck(feats))


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        resnet = torchvision.models.resnet50(weights="IMAGENET1K_V2")
        self.backbone = nn.Sequential(*list(resnet.children())[:-2])
        self.head = BEVHead()

    def forward(self, img):
        return self.head(self.backbone(img))

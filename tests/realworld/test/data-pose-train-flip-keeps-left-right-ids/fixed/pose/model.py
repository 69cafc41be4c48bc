import torch
from torch import nn
import torchvision


class SimpleBaseline(nn.Module):
    def __init__(self, num_joints=17):
        super().__init__()
        resnet = torchvision.models.resnet50(weights=torchvision.models.ResNet50_Weights.IMAGENET1K_V2)
        self.backbone = nn.Sequential(*list(resnet.children())[:-2])
        layers, in_ch = [], 2048
        for _ in range(3):
            layers += [
                nn.ConvTranspose2d(in_ch, 256, kernel_size=4, stride=2, padding=1, bias=False),
                nn.BatchNorm2d(256),
                nn.ReLU(inplace=True),
            ]
            in_ch = 256
        self.deconv = nn.Sequential(*layers)
        self.final = nn.Conv2d(256, num_joints, kernel_size=1)

    def forward(self, x):
        return self.final(self.deconv(self.backbone(x)))

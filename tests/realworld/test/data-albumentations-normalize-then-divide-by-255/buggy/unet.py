import torch
import torch.nn as nn


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class NestedUNet(nn.Module):
    def __init__(self, num_classes=1, ch=(32, 64, 128)):
        super().__init__()
        self.pool = nn.MaxPool2d(2)
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
        self.conv0_0, self.conv1_0, self.conv2_0 = block(3, ch[0]), block(ch[0], ch[1]), block(ch[1], ch[2])
        self.conv0_1 = block(ch[0] + ch[1], ch[0])
        self.conv1_1 = block(ch[1] + ch[2], ch[1])
        self.conv0_2 = block(ch[0] * 2 + ch[1], ch[0])
        self.final = nn.Conv2d(ch[0], num_classes, 1)

    def forward(self, x):
        x0_0 = self.conv0_0(x)
        x1_0 = self.conv1_0(self.pool(x0_0))
        x0_1 = self.conv0_1(torch.cat([x0_0, self.up(x1_0)], 1))
        x2_0 = self.conv2_0(self.pool(x1_0))
        x1_1 = self.conv1_1(torch.cat([x1_0, self.up(x2_0)], 1))
        x0_2 = self.conv0_2(torch.cat([x0_0, x0_1, self.up(x1_1)], 1))
        return self.final(x0_2)

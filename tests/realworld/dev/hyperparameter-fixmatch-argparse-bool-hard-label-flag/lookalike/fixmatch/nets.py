from torch import nn


def conv_bn(c_in, c_out, stride=1):
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, 3, stride=stride, padding=1, bias=False),
        nn.BatchNorm2d(c_out),
        nn.LeakyReLU(0.1),
    )


def build_net(num_classes=10, width=64):
    return nn.Sequential(
        conv_bn(3, width), conv_bn(width, width),
        conv_bn(width, 2 * width, stride=2), conv_bn(2 * width, 2 * width),
        conv_bn(2 * width, 4 * width, stride=2), conv_bn(4 * width, 4 * width),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(4 * width, num_classes),
    )

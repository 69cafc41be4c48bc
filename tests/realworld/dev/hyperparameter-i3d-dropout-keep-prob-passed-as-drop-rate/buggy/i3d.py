import torch
import torch.nn.functional as F


class Unit3Dpy(torch.nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=(1, 1, 1), stride=(1, 1, 1),
                 activation="relu", padding="SAME", use_bias=False, use_bn=True):
        super(Unit3Dpy, self).__init__()
        pad = tuple(k // 2 for k in kernel_size) if padding == "SAME" else 0
        self.conv3d = torch.nn.Conv3d(in_channels, out_channels, kernel_size, stride=stride,
                                      padding=pad, bias=use_bias)
        self.use_bn = use_bn
        if use_bn:
            self.batch3d = torch.nn.BatchNorm3d(out_channels)
        self.activation = activation

    def forward(self, inp):
        out = self.conv3d(inp)
        if self.use_bn:
            out = self.batch3d(out)
        if self.activation == "relu":
            out = F.relu(out)
        return out


class Mixed(torch.nn.Module):
    def __init__(self, in_channels, out_channels):
        super(Mixed, self).__init__()
        self.branch_0 = Unit3Dpy(in_channels, out_channels[0], kernel_size=(1, 1, 1))
        self.branch_1 = torch.nn.Sequential(
            Unit3Dpy(in_channels, out_channels[1], kernel_size=(1, 1, 1)),
            Unit3Dpy(out_channels[1], out_channels[2], kernel_size=(3, 3, 3)))
        self.branch_2 = torch.nn.Sequential(
            Unit3Dpy(in_channels, out_channels[3], kernel_size=(1, 1, 1)),
            Unit3Dpy(out_channels[3], out_channels[4], kernel_size=(3, 3, 3)))
        self.branch_3 = torch.nn.Sequential(
            torch.nn.MaxPool3d((3, 3, 3), stride=1, padding=1),
            Unit3Dpy(in_channels, out_channels[5], kernel_size=(1, 1, 1)))

    def forward(self, inp):
        return torch.cat((self.branch_0(inp), self.branch_1(inp),
                          self.branch_2(inp), self.branch_3(inp)), 1)


class I3D(torch.nn.Module):
    def __init__(self, num_classes, modality="rgb", dropout_keep_prob=1, name="inception"):
        super(I3D, self).__init__()
        self.name = name
        self.num_classes = num_classes
        in_channels = 3 if modality == "rgb" else 2
        self.modality = modality

        self.conv3d_1a_7x7 = Unit3Dpy(in_channels, 16, kernel_size=(3, 5, 5), stride=(1, 2, 2))
        self.maxPool3d_2a_3x3 = torch.nn.MaxPool3d((1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1))
        self.conv3d_2c_3x3 = Unit3Dpy(16, 32, kernel_size=(3, 3, 3))
        self.mixed_3b = Mixed(32, [8, 8, 16, 4, 8, 8])
        self.avg_pool = torch.nn.AdaptiveAvgPool3d((2, 1, 1))
        self.dropout = torch.nn.Dropout(dropout_keep_prob)
        self.conv3d_0c_1x1 = Unit3Dpy(40, self.num_classes, kernel_size=(1, 1, 1),
                                      activation=None, use_bias=True, use_bn=False)
        self.softmax = torch.nn.Softmax(1)

    def forward(self, inp):
        out = self.conv3d_1a_7x7(inp)
        out = self.maxPool3d_2a_3x3(out)
        out = self.conv3d_2c_3x3(out)
        out = self.mixed_3b(out)
        out = self.avg_pool(out)
        out = self.dropout(out)
        out = self.conv3d_0c_1x1(out)
        out = out.squeeze(3).squeeze(3)
        out = out.mean(2)
        out_logits = out
        out = self.softmax(out_logits)
        return out, out_logits

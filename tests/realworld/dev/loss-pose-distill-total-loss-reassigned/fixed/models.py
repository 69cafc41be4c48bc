import torch
from torch import nn


class Residual(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.body = nn.Sequential(nn.BatchNorm2d(c), nn.ReLU(), nn.Conv2d(c, c, 3, padding=1),
                                  nn.BatchNorm2d(c), nn.ReLU(), nn.Conv2d(c, c, 3, padding=1))

    def forward(self, x):
        return x + self.body(x)


class StackedHourglassLite(nn.Module):
    """Returns one heatmap tensor per stack."""

    def __init__(self, num_stacks, num_joints, width=64):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 7, stride=2, padding=3), nn.BatchNorm2d(width),
                                  nn.ReLU(), nn.MaxPool2d(2))
        self.stacks = nn.ModuleList([nn.Sequential(Residual(width), Residual(width)) for _ in range(num_stacks)])
        self.heads = nn.ModuleList([nn.Conv2d(width, num_joints, 1) for _ in range(num_stacks)])
        self.remaps = nn.ModuleList([nn.Conv2d(num_joints, width, 1) for _ in range(num_stacks - 1)])

    def forward(self, x):
        x = self.stem(x)
        outputs = []
        for i, (stack, head) in enumerate(zip(self.stacks, self.heads)):
            feat = stack(x)
            heat = head(feat)
            outputs.append(heat)
            if i < len(self.remaps):
                x = x + feat + self.remaps[i](heat)
        return outputs


def build_student(num_joints):
    return StackedHourglassLite(num_stacks=4, num_joints=num_joints, width=64)


def build_teacher(num_joints, ckpt_path):
    teacher = StackedHourglassLite(num_stacks=8, num_joints=num_joints, width=128)
    teacher.load_state_dict(torch.load(ckpt_path, map_location="cpu"))
    teacher.eval()
    for p in teacher.parameters():
        p.requires_grad_(False)
    return teacher

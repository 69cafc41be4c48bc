import torch
import torch.nn as nn
import torch.nn.functional as F


class ExistHead(nn.Module):
    """Predicts, per image, whether each of the lane slots is occupied."""

    def __init__(self, in_channels, num_lanes=4, feat_hw=(18, 50)):
        super().__init__()
        self.dropout = nn.Dropout2d(0.1)
        self.conv = nn.Conv2d(in_channels, num_lanes + 1, 1)
        self.pool = nn.AvgPool2d(2, 2)
        h, w = feat_hw
        self.fc9 = nn.Linear((num_lanes + 1) * (h // 2) * (w // 2), 128)
        self.fc10 = nn.Linear(128, num_lanes)

    def forward(self, x):
        x = self.dropout(x)
        x = F.softmax(self.conv(x), dim=1)
        x = self.pool(x).flatten(1)
        x = F.relu(self.fc9(x))
        exist = self.fc10(x)
        return {"exist": exist}

import torch
import torch.nn as nn
import torch.nn.functional as F


class GazeNet(nn.Module):
    """Eye patch (1x36x60) + head pose (pitch, yaw) -> unit 3D gaze direction."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 20, 5), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(20, 50, 5), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.fc1 = nn.Linear(50 * 6 * 12, 500)
        self.fc2 = nn.Linear(500 + 2, 3)

    def forward(self, eye, head_pose):
        x = self.features(eye).flatten(1)
        x = F.relu(self.fc1(x))
        x = self.fc2(torch.cat([x, head_pose], dim=1))
        return F.normalize(x, dim=1)

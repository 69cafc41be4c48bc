import torch
import torch.nn.functional as F


def pitchyaw_to_vector(pitchyaw):
    pitch, yaw = pitchyaw[:, 0], pitchyaw[:, 1]
    return torch.stack([
        -torch.cos(pitch) * torch.sin(yaw),
        -torch.sin(pitch),
        -torch.cos(pitch) * torch.cos(yaw),
    ], dim=1)


class AngularLoss(torch.nn.Module):
    """Mean angle (radians) between predicted and ground-truth gaze directions."""

    def forward(self, pred, target):
        pred = F.normalize(pred, dim=1)
        target = F.normalize(target, dim=1)
        cos_sim = (pred * target).sum(dim=1)
        angle = torch.acos(cos_sim)
        return angle.mean()

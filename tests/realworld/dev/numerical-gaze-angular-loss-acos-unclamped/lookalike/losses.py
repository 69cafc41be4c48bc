import torch
import torch.nn.functional as F


def pitchyaw_to_vector(pitchyaw):
    pitch, yaw = pitchyaw[:, 0], pitchyaw[:, 1]
    return torch.stack([
        -torch.cos(pitch) * torch.sin(yaw),
        -torch.sin(pitch),
        -torch.cos(pitch) * torch.cos(yaw),
    ], dim=1)


class CosineGazeLoss(torch.nn.Module):
    """1 - cosine similarity between predicted and ground-truth gaze directions."""

    def forward(self, pred, target):
        return (1 - F.cosine_similarity(pred, target, dim=1)).mean()


@torch.no_grad()
def angular_error_deg(pred, target):
    pred = F.normalize(pred, dim=1)
    target = F.normalize(target, dim=1)
    cos_sim = (pred * target).sum(dim=1).clamp(-1.0, 1.0)
    return torch.rad2deg(torch.acos(cos_sim))

import torch
from torch import nn


class JointsMSELoss(nn.Module):
    """Mean squared error between predicted and target heatmaps, weighted per joint."""

    def __init__(self, use_target_weight=True):
        super().__init__()
        self.criterion = nn.MSELoss(reduction="mean")
        self.use_target_weight = use_target_weight

    def forward(self, output, target, target_weight=None):
        b, j = output.shape[:2]
        pred = output.reshape(b, j, -1)
        gt = target.reshape(b, j, -1)
        if self.use_target_weight and target_weight is not None:
            w = target_weight.reshape(b, j, 1)
            pred, gt = pred * w, gt * w
        return 0.5 * self.criterion(pred, gt)


def stack_loss(criterion, outputs, target, target_weight=None):
    """Sum the heatmap loss over the intermediate outputs of a stacked network."""
    return sum(criterion(o, target, target_weight) for o in outputs)


@torch.no_grad()
def teacher_heatmaps(teacher, images):
    return teacher(images)[-1]

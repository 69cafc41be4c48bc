import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiTaskLoss(nn.Module):
    def __init__(self, w_point=1.0, w_ray=0.1):
        super().__init__()
        self.w_point, self.w_ray = w_point, w_ray

    def forward(self, outputs, targets):
        point = F.mse_loss(outputs["points"].float(), targets["points"])
        ray = (1 - F.cosine_similarity(outputs["rays"].float(), targets["rays"], dim=-1)).mean()
        loss = self.w_point * point + self.w_ray * ray
        return loss, {"point": point.item(), "ray": ray.item()}

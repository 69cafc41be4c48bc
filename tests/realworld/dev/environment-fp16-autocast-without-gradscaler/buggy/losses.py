import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiTaskLoss(nn.Module):
    def __init__(self, w_point=1.0, w_ray=0.5, w_cam=0.5):
        super().__init__()
        self.w_point, self.w_ray, self.w_cam = w_point, w_ray, w_cam

    def forward(self, outputs, targets):
        point = F.mse_loss(outputs["pointmap"], targets["pointmap"])
        ray = 1 - F.cosine_similarity(outputs["raymap"], targets["raymap"], dim=-1).mean()
        cam = 1 - F.cosine_similarity(outputs["cam_dir"], targets["cam_dir"], dim=-1).mean()
        return self.w_point * point + self.w_ray * ray + self.w_cam * cam

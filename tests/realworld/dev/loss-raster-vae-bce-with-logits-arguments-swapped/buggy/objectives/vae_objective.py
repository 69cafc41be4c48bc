from typing import Dict

import torch
import torch.nn.functional as F


class KLObjective:
    """KL(q(z|x) || N(0, I)) averaged over the batch."""

    def __init__(self, weight: float):
        self._weight = weight

    def __call__(self, predictions: Dict[str, torch.Tensor]) -> torch.Tensor:
        mu, log_var = predictions["mu"], predictions["log_var"]
        kl = -0.5 * torch.sum(1 + log_var - mu.pow(2) - log_var.exp(), dim=1)
        return self._weight * kl.mean()


class VAEObjective:
    """Reconstruction term for the multi-channel raster (lines, vehicles, pedestrians...)."""

    def __init__(self, weight: float, channel_weights=None):
        self._weight = weight
        self._channel_weights = channel_weights

    def __call__(self, predictions: Dict[str, torch.Tensor],
                 targets: Dict[str, torch.Tensor]) -> torch.Tensor:
        pred_logits = predictions["raster_logits"]
        gt_raster = targets["raster"]

        per_pixel = F.binary_cross_entropy_with_logits(gt_raster, pred_logits, reduction="none")
        per_channel = per_pixel.mean(dim=(0, 2, 3))
        if self._channel_weights is not None:
            per_channel = per_channel * per_channel.new_tensor(self._channel_weights)
        return self._weight * per_channel.sum()

import torch
from torch import nn


def class_weights(labels, n_classes: int, power: float) -> torch.Tensor:
    counts = torch.bincount(torch.as_tensor(labels), minlength=n_classes).float().clamp(min=1)
    weights = (counts.sum() / counts) ** power
    return weights / weights.mean()


def build_loss(cfg, train_labels, n_classes: int) -> nn.Module:
    weight = class_weights(train_labels, n_classes, cfg.class_weight_power) if cfg.class_weight_power else None
    return nn.CrossEntropyLoss(weight=weight, label_smoothing=cfg.label_smoothing)

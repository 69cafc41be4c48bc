"""Parameter grouping for the optimizer."""
import torch.nn as nn


def param_groups_weight_decay(model: nn.Module, weight_decay: float, skip=()):
    """Two groups: matrices / conv kernels get `weight_decay`; biases, normalisation scales and
    shifts (every parameter with at most one dimension) and any name in `skip` get none."""
    decay, no_decay = [], []
    for name, param in model.named_parameters():
        if not param.requires_grad:
            continue
        if param.ndim <= 1 or name.endswith(".bias") or name in skip:
            no_decay.append(param)
        else:
            decay.append(param)
    return [{"params": no_decay},
            {"params": decay, "weight_decay": weight_decay}]

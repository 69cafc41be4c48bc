from torch import nn


def freeze(module: nn.Module):
    for p in module.parameters():
        p.requires_grad = False


def unfreeze_and_add_param_group(module: nn.Module, optimizer, cfg):
    """Make the module trainable again and hand its parameters to the optimizer."""
    for p in module.parameters():
        p.requires_grad = True
    optimizer.add_param_group({"params": list(module.parameters()), "lr": cfg["lr"], "initial_lr": cfg["lr"]})


def set_epoch_lr(optimizer, epoch, gamma):
    """Exponential schedule computed from each group's starting lr and the epoch index."""
    for group in optimizer.param_groups:
        group["lr"] = group["initial_lr"] * gamma ** epoch

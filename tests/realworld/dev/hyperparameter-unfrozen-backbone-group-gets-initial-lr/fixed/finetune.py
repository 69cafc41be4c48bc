from torch import nn


def freeze(module: nn.Module):
    for p in module.parameters():
        p.requires_grad = False


def unfreeze_and_add_param_group(module: nn.Module, optimizer, cfg):
    """Make the module trainable again and hand its parameters to the optimizer."""
    for p in module.parameters():
        p.requires_grad = True
    optimizer.add_param_group({"params": list(module.parameters()), "lr": optimizer.param_groups[0]["lr"]})


def decay_lr(optimizer, gamma):
    for group in optimizer.param_groups:
        group["lr"] *= gamma

import torch.distributed as dist


def get_world_size():
    if dist.is_available() and dist.is_initialized():
        return dist.get_world_size()
    return 1


def scale_lr(cfg):
    """Linear scaling rule: base_lr is given for base_batch_size images per step."""
    world_size = get_world_size()
    total_batch = cfg["batch_size_per_gpu"] * world_size
    cfg["lr"] = cfg["base_lr"] * total_batch / cfg["base_batch_size"]
    return cfg

import torch
import torch.distributed as dist


def get_world_size():
    return dist.get_world_size() if dist.is_initialized() else 1


def reduce_tensor(inp):
    """Reduce a scalar tensor from all processes so that rank 0 has the result."""
    world_size = get_world_size()
    if world_size < 2:
        return inp
    with torch.no_grad():
        reduced = inp.clone()
        dist.reduce(reduced, dst=0)
    return reduced


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def average(self):
        return self.sum / max(1, self.count)

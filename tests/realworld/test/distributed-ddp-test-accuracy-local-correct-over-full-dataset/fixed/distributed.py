import os

import torch
import torch.distributed as dist


def init_distributed(backend="nccl"):
    rank = int(os.environ.get("RANK", 0))
    world_size = int(os.environ.get("WORLD_SIZE", 1))
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    if world_size > 1:
        dist.init_process_group(backend=backend, init_method="env://",
                                rank=rank, world_size=world_size)
    if torch.cuda.is_available():
        torch.cuda.set_device(local_rank)
    return rank, world_size, local_rank


def is_master(rank):
    return rank == 0


def average_gradients(model, world_size):
    """Plain all-reduce of gradients, kept for the non-DDP code path."""
    for param in model.parameters():
        if param.grad is None:
            continue
        dist.all_reduce(param.grad.data, op=dist.ReduceOp.SUM)
        param.grad.data /= world_size

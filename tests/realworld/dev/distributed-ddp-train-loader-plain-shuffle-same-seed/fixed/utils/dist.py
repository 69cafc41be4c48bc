import os
import random

import numpy as np
import torch
import torch.distributed as dist


def setup():
    dist.init_process_group(backend="nccl" if torch.cuda.is_available() else "gloo")
    local_rank = int(os.environ["LOCAL_RANK"])
    if torch.cuda.is_available():
        torch.cuda.set_device(local_rank)
    return dist.get_rank(), dist.get_world_size(), local_rank


def cleanup():
    dist.destroy_process_group()


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


def reduce_mean(value, world_size):
    tensor = torch.as_tensor(value, dtype=torch.float32,
                             device="cuda" if torch.cuda.is_available() else "cpu")
    dist.all_reduce(tensor)
    return (tensor / world_size).item()

"""Helpers for multi-process testing (gloo backend so it also runs on CPU)."""
import math
import os

import torch
import torch.distributed as dist
from torch.utils.data import Sampler


def init_dist(rank, world_size, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world_size)


def get_dist_info():
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


class SequentialDistributedSampler(Sampler):
    """Give each rank one contiguous block of the dataset (padded with the last index)."""

    def __init__(self, dataset, num_replicas, rank):
        self.num_samples = math.ceil(len(dataset) / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.dataset_len = len(dataset)
        self.rank = rank

    def __iter__(self):
        indices = list(range(self.dataset_len))
        indices += [indices[-1]] * (self.total_size - len(indices))
        start = self.rank * self.num_samples
        return iter(indices[start:start + self.num_samples])

    def __len__(self):
        return self.num_samples


@torch.no_grad()
def multi_proc_test(model, loader):
    model.eval()
    results = []
    for x, _ in loader:
        results.extend(model(x).softmax(-1).unbind(0))
    return results


def collect_results(result_part, size):
    """Gather every rank's predictions on all ranks and return them in dataset order."""
    rank, world_size = get_dist_info()
    part_list = [None] * world_size
    dist.all_gather_object(part_list, result_part)
    ordered_results = []
    for part in part_list:
        ordered_results.extend(part)
    return ordered_results[:size]

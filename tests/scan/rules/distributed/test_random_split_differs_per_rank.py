"""The ``random-split-differs-per-rank`` rule (``mlsleuth/scan/rules/distributed/random_split_differs_per_rank.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = "random-split-differs-per-rank"


def test_split_without_generator_after_a_per_rank_seed_flags():
    src = """
    import torch
    import torch.distributed as dist
    from torch.utils.data import random_split

    def setup(dataset, base_seed):
        rank = dist.get_rank()
        torch.manual_seed(base_seed + rank)
        train, val = random_split(dataset, [0.9, 0.1])  # expect: random-split-differs-per-rank
        return train, val
    """
    check(src, {RULE})


def test_accelerate_device_specific_seed_in_another_module_flags(tmp_path):
    utils = """
    from accelerate.utils import set_seed

    def seed_all(seed):
        set_seed(seed, device_specific=True)
    """
    data = """
    import torch.utils.data as tud

    def make(ds, n_val):
        return tud.random_split(ds, [len(ds) - n_val, n_val])  # expect: random-split-differs-per-rank
    """
    check_project(tmp_path, {"utils.py": utils, "data.py": data}, {RULE})


def test_a_split_with_its_own_generator_or_the_same_seed_everywhere_is_fine(tmp_path):
    src = """
    import torch
    import torch.distributed as dist
    from torch.utils.data import random_split

    def setup(dataset, base_seed):
        torch.manual_seed(base_seed + dist.get_rank())
        g = torch.Generator().manual_seed(base_seed)
        return random_split(dataset, [0.9, 0.1], generator=g)
    """
    check(src, {RULE})
    same_seed = """
    import torch
    from torch.utils.data import random_split

    def setup(dataset, seed, rank):
        torch.manual_seed(seed)
        print(f"rank {rank} starting")
        return random_split(dataset, [0.9, 0.1])
    """
    check(same_seed, {RULE})


def test_an_unseeded_distributed_script_flags_and_a_seeded_one_does_not():
    unseeded = """
    import os
    import torch
    from torch.distributed import init_process_group
    from torch.utils.data import random_split

    def main(dataset):
        init_process_group(backend="nccl")
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
        train, test = random_split(dataset, [0.9, 0.1])  # expect: random-split-differs-per-rank
        return train, test
    """
    check(unseeded, {RULE})
    seeded = """
    import os
    import torch
    from torch.distributed import init_process_group
    from torch.utils.data import random_split

    def main(dataset):
        init_process_group(backend="nccl")
        torch.manual_seed(0)
        return random_split(dataset, [0.9, 0.1])
    """
    check(seeded, {RULE})
    single_process = """
    from torch.utils.data import random_split

    def main(dataset):
        return random_split(dataset, [0.9, 0.1])
    """
    check(single_process, {RULE})


def test_a_per_rank_seed_in_another_project_folder_does_not_count(tmp_path):
    seeding = """
    import torch

    def seed(base, rank):
        torch.manual_seed(base + rank)
    """
    split = """
    import torch
    from torch.utils.data import random_split

    def make(ds):
        torch.manual_seed(0)
        return random_split(ds, [0.9, 0.1])
    """
    check_project(tmp_path, {"other_example/seeding.py": seeding, "this_example/data.py": split}, {RULE})

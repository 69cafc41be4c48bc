"""The ``sampler-seed-differs-per-rank`` rule (``mlsleuth/scan/rules/distributed/sampler_seed_differs_per_rank.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"sampler-seed-differs-per-rank"}


def test_seed_plus_rank_in_the_call_and_through_a_variable():
    check(
        """
        import os
        import torch.distributed as dist
        import torch.utils.data as tud
        from torch.utils.data.distributed import DistributedSampler

        def loaders(ds, cfg, rank):
            a = DistributedSampler(ds, num_replicas=cfg.world_size, rank=rank, shuffle=True, seed=cfg.seed + rank)  # expect: sampler-seed-differs-per-rank
            seed = cfg.seed + dist.get_rank()
            b = tud.DistributedSampler(ds, seed=seed)  # expect: sampler-seed-differs-per-rank
            c = DistributedSampler(ds, None, None, True, 1000 * int(os.environ["LOCAL_RANK"]))  # expect: sampler-seed-differs-per-rank
            return a, b, c
        """,
        RULE,
    )


def test_seed_passed_through_a_helper_and_a_subclass_in_other_files(tmp_path):
    samplers = """
    from torch.utils.data import DistributedSampler

    class BucketSampler(DistributedSampler):
        pass

    def make_sampler(ds, seed):
        return DistributedSampler(ds, shuffle=True, seed=seed)  # expect: sampler-seed-differs-per-rank
    """
    train = """
    from accelerate import Accelerator
    from samplers import BucketSampler, make_sampler

    def main(ds, args):
        acc = Accelerator()
        s1 = make_sampler(ds, args.seed + acc.process_index)
        s2 = BucketSampler(ds, seed=args.seed * 7 + acc.local_process_index)  # expect: sampler-seed-differs-per-rank
        return s1, s2
    """
    check_project(tmp_path, {"samplers.py": samplers, "train.py": train}, RULE)


def test_hf_dataset_shuffled_with_a_rank_seed_then_split_by_node():
    check(
        """
        from datasets.distributed import split_dataset_by_node

        def shard(ds, seed, rank, world_size):
            ds = ds.shuffle(seed=seed + rank)  # expect: sampler-seed-differs-per-rank
            return split_dataset_by_node(ds, rank=rank, world_size=world_size)
        """,
        RULE,
    )


def test_rank_seed_for_augmentation_and_shared_sampler_seed_is_fine():
    check(
        """
        import torch
        import torch.distributed as dist
        from torch.utils.data import DataLoader, DistributedSampler

        def build(ds, cfg, rank, epoch):
            torch.manual_seed(cfg.seed + rank)            # per-rank augmentation noise
            noise = torch.Generator().manual_seed(cfg.seed + rank)
            sampler = DistributedSampler(ds, rank=rank, num_replicas=dist.get_world_size(), seed=cfg.seed)
            ranking_seed = cfg.seed + 3
            other = DistributedSampler(ds, rank=rank, seed=ranking_seed)
            sampler.set_epoch(epoch)
            pool = ds.shuffle(seed=cfg.seed + rank)      # not sharded afterwards: each rank's own buffer
            return DataLoader(ds, sampler=sampler), other, noise, pool
        """,
        RULE,
    )

"""The ``collective-inside-rank-branch`` rule (``mlsleuth/scan/rules/distributed/collective_inside_rank_branch.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

RULE = "collective-inside-rank-branch"


def test_barrier_reached_by_rank_0_only():
    src = """
    import torch
    import torch.distributed as dist

    def train(model, loader, opt, rank):
        for epoch in range(3):
            for x, y in loader:
                opt.zero_grad()
                model(x).sum().backward()
                opt.step()
            if rank == 0:
                print("validating")
                dist.barrier()  # expect: collective-inside-rank-branch
    """
    (f,) = findings(src, RULE)
    check(src, {RULE})
    assert f.severity == "error" and "rank == 0" in f.message


def test_metric_all_reduced_only_on_the_main_process():
    src = """
    import torch
    from torch import distributed as dist

    def log_metrics(loss, is_main_process):
        if is_main_process:
            total = torch.tensor([loss])
            dist.all_reduce(total)  # expect: collective-inside-rank-branch
            print(total.item())
    """
    check(src, {RULE})


def test_collectives_every_rank_calls_are_fine():
    outside = """
    import torch
    import torch.distributed as dist

    def log_metrics(loss, rank):
        total = torch.tensor([loss])
        dist.all_reduce(total)
        if rank == 0:
            print(total.item())
        dist.barrier()
    """
    both_branches = """
    import torch.distributed as dist

    def share(obj, rank):
        if rank == 0:
            box = [obj]
            dist.broadcast_object_list(box, src=0)
        else:
            box = [None]
            dist.broadcast_object_list(box, src=0)
        return box[0]
    """
    point_to_point = """
    import torch
    import torch.distributed as dist

    def exchange(t, rank):
        if rank == 0:
            dist.send(t, dst=1)
        else:
            dist.recv(t, src=0)
    """
    not_a_rank_test = """
    import torch.distributed as dist

    def sync(world_size):
        if world_size > 1 and dist.is_initialized():
            dist.barrier()
    """
    for src in (outside, both_branches, point_to_point, not_a_rank_test):
        check(src, {RULE})


def test_rank_tests_that_every_rank_passes_alike_are_fine():
    # -1 is the "not launched distributed" rank, so `rank != -1` holds on every process of a job; and the
    # "main process first" context manager: the other ranks wait at one barrier, which rank 0 joins after its work
    check(
        """
        import contextlib
        import torch.distributed as dist

        @contextlib.contextmanager
        def main_process_first(local_rank):
            if local_rank not in (-1, 0):
                dist.barrier()
            yield
            if local_rank == 0:
                dist.barrier()

        def maybe_stop(stop, rank):
            flags = [stop]
            if rank != -1:
                dist.broadcast_object_list(flags, 0)
            return flags[0]

        @contextlib.contextmanager
        def leader_first(accelerator):
            try:
                if not accelerator.is_main_process:
                    dist.barrier()
                yield
            finally:
                if accelerator.is_main_process:
                    dist.barrier()

        def only_main_waits(rank):
            if rank == 0:
                dist.barrier()  # expect: collective-inside-rank-branch
            if rank > 1:
                dist.barrier()  # expect: collective-inside-rank-branch
        """,
        {RULE},
    )


def test_rank_zero_first_pair_with_an_extra_condition_stays_silent():
    # a dataset that caches its features: the other ranks wait while rank 0 builds the cache, in training mode
    # only; the same condition sits beside the rank test in both barriers, so every rank calls one of them
    src = """
        import torch

        class CachedFeatures:
            def __init__(self, args, mode):
                if args.local_rank not in [-1, 0] and mode == "train":
                    torch.distributed.barrier()
                self.features = build(args, mode)
                if args.local_rank == 0 and mode == "train":
                    torch.distributed.barrier()

        def unpaired(args, mode):
            if args.local_rank == 0 and mode == "train":
                torch.distributed.barrier()  # expect: collective-inside-rank-branch
        """
    check(src, RULE)

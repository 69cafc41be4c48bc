"""The ``ddp-train-loader-not-sharded`` rule (``mlsleuth/scan/rules/distributed/ddp_train_loader_not_sharded.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = "ddp-train-loader-not-sharded"


def test_shuffled_loader_in_ddp_loop_same_function():
    check(
        """
        import torch
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel as DDP
        from torch.utils.data import DataLoader

        def main(train_ds, model, opt, rank):
            dist.init_process_group("nccl")
            model = DDP(model.to(rank), device_ids=[rank])
            loader = DataLoader(train_ds, batch_size=64, shuffle=True, num_workers=4)  # expect: ddp-train-loader-not-sharded
            for epoch in range(10):
                for step, (x, y) in enumerate(loader):
                    loss = torch.nn.functional.cross_entropy(model(x), y)
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
        """,
        {RULE},
    )


def test_fsdp_wrapped_by_helper_and_loader_without_shuffle():
    check(
        """
        import torch
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
        from torch.utils.data import DataLoader
        from tqdm import tqdm

        def wrap(model):
            return FSDP(model)

        def train(model, dataset, opt):
            model = wrap(model)
            train_loader = DataLoader(dataset, batch_size=8)  # expect: ddp-train-loader-not-sharded
            for batch in tqdm(train_loader):
                model(**batch).loss.backward()
                opt.step()
        """,
        {RULE},
    )


def test_loader_built_in_another_module(tmp_path):
    check_project(
        tmp_path,
        {
            "data.py": """
                from torch.utils.data import DataLoader

                def make_loader(ds, bs):
                    return DataLoader(ds, batch_size=bs, shuffle=True, drop_last=True)
            """,
            "train.py": """
                import torch
                import torch.nn as nn
                from data import make_loader

                def run(args, ds, model, opt):
                    model = nn.parallel.DistributedDataParallel(model)
                    loader = make_loader(ds, args.bs)  # expect: ddp-train-loader-not-sharded
                    for x, y in loader:
                        opt.zero_grad()
                        nn.functional.mse_loss(model(x), y).backward()
                        opt.step()
            """,
        },
        {RULE},
    )


def test_sampled_sharded_or_non_ddp_loaders_are_silent(tmp_path):
    check_project(
        tmp_path,
        {
            "data.py": """
                from torch.utils.data import DataLoader, Subset
                from torch.utils.data.distributed import DistributedSampler

                def sampled(ds, bs):
                    return DataLoader(ds, batch_size=bs, sampler=DistributedSampler(ds), shuffle=False)

                def shard(ds, rank, world):
                    return Subset(ds, list(range(rank, len(ds), world)))

                def on_shard(part, bs):
                    return DataLoader(part, batch_size=bs, shuffle=True)
            """,
            "train.py": """
                import torch
                from torch.nn.parallel import DistributedDataParallel as DDP
                from torch.utils.data import DataLoader
                from datasets.distributed import split_dataset_by_node
                from data import on_shard, sampled, shard

                def with_sampler(ds, model, opt):
                    model = DDP(model)
                    for x, y in sampled(ds, 32):
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()

                def with_rank_shard(ds, model, opt, rank, world_size):
                    model = DDP(model)
                    loader = on_shard(shard(ds, rank, world_size), 32)
                    for x, y in loader:
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()

                def with_hf_split(ds, model, opt, rank, world_size):
                    model = DDP(model)
                    part = split_dataset_by_node(ds, rank=rank, world_size=world_size)
                    for batch in DataLoader(part, batch_size=8, shuffle=True):
                        model(**batch).loss.backward()
                        opt.step()

                def single_process(ds, model, opt):
                    loader = DataLoader(ds, batch_size=32, shuffle=True)
                    for x, y in loader:
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()

                def eval_only(ds, model):
                    model = DDP(model)
                    loader = DataLoader(ds, batch_size=32)
                    with torch.no_grad():
                        for x, y in loader:
                            print(model(x).mean())
            """,
        },
        {RULE},
    )

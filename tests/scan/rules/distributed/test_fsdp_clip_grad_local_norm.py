"""The ``fsdp-clip-grad-local-norm`` rule (``mlsleuth/scan/rules/distributed/fsdp_clip_grad_local_norm.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

FC = {"fsdp-clip-grad-local-norm"}


def test_script_and_trainer_attribute():
    check(
        """
        import torch
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, ShardingStrategy

        model = FSDP(build_model(), sharding_strategy=ShardingStrategy.FULL_SHARD, device_id=rank)
        opt = torch.optim.AdamW(model.parameters())
        for batch in loader:
            loss = model(batch).mean()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: fsdp-clip-grad-local-norm
            opt.step()
            opt.zero_grad()

        class Trainer:
            def __init__(self, net):
                self.model = FSDP(net, use_orig_params=True)

            def step(self, batch):
                self.model(batch).mean().backward()
                gn = torch.nn.utils.clip_grad_norm_(self.model.parameters(), max_norm=1.0)  # expect: fsdp-clip-grad-local-norm
                return gn
        """,
        FC,
    )


def test_message():
    got = findings(
        """
        import torch
        from torch.distributed.fsdp import FullyShardedDataParallel
        m = FullyShardedDataParallel(net)
        torch.nn.utils.clip_grad_norm_(m.parameters(), 0.5)
        """,
        "fsdp-clip-grad-local-norm",
    )
    assert len(got) == 1 and "m.clip_grad_norm_" in got[0].message


def test_wrapper_method_no_shard_ddp_and_fsdp2_are_fine():
    check(
        """
        import torch
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, ShardingStrategy, fully_shard
        from torch.nn.parallel import DistributedDataParallel as DDP

        a = FSDP(net)
        a.clip_grad_norm_(1.0)
        b = FSDP(net, sharding_strategy=ShardingStrategy.NO_SHARD)
        torch.nn.utils.clip_grad_norm_(b.parameters(), 1.0)
        c = DDP(net)
        torch.nn.utils.clip_grad_norm_(c.parameters(), 1.0)
        fully_shard(net)
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        d = FSDP(net, sharding_strategy=cfg.strategy)
        torch.nn.utils.clip_grad_norm_(d.parameters(), 1.0)
        """,
        FC,
    )

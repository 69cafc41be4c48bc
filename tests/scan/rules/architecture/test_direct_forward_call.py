"""The ``direct-forward-call`` rule (``mlsleuth/scan/rules/architecture/direct_forward_call.py``)."""

from __future__ import annotations

from scan.helpers import check

FW = {"direct-forward-call"}


def test_direct_forward_call_in_training_loop():
    check(
        """
        import torch

        def train(model, loader, opt):
            model.train()
            for x, y in loader:
                opt.zero_grad()
                out = model.forward(x)  # expect: direct-forward-call
                torch.nn.functional.mse_loss(out, y).backward()
                opt.step()
        """,
        FW,
    )


def test_forward_inside_modules_super_and_ddp_is_fine():
    check(
        """
        import torch
        from torch import nn
        from torch.nn.parallel import DistributedDataParallel as DDP

        class Wrapper(nn.Module):
            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def forward(self, x):
                return self.inner.forward(x) + super().forward(x)

        def train(net, loader, opt):
            model = DDP(net)
            model.train()
            for x in loader:
                opt.zero_grad()
                model.forward(x).sum().backward()
                opt.step()
        """,
        FW,
    )

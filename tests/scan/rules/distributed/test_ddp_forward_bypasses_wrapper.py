"""The ``ddp-forward-bypasses-wrapper`` rule (``mlsleuth/scan/rules/distributed/ddp_forward_bypasses_wrapper.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"ddp-forward-bypasses-wrapper"}


def test_training_forward_through_the_inner_module():
    src = """
    import torch
    from torch.nn.parallel import DistributedDataParallel as DDP

    def train(net, loader, opt, rank):
        model = DDP(net.to(rank), device_ids=[rank])
        for x, y in loader:
            opt.zero_grad()
            loss = model.module.compute_loss(x, y)  # expect: ddp-forward-bypasses-wrapper
            loss.backward()
            opt.step()

    class Trainer:
        def __init__(self, net, distributed):
            self.model = self._wrap(net, distributed)

        def _wrap(self, net, distributed):
            if distributed:
                net = torch.nn.parallel.DistributedDataParallel(net)
            return net

        def _unwrap(self):
            return self.model.module if isinstance(self.model, DDP) else self.model

        def step(self, batch, opt):
            opt.zero_grad()
            out = self._unwrap()(batch)  # expect: ddp-forward-bypasses-wrapper
            out.loss.backward()
            opt.step()
    """
    check(src, RULE)


def test_wrapper_forward_eval_and_saving_are_fine():
    src = """
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    class Trainer:
        def __init__(self, net):
            self.model = DDP(net)

        def step(self, batch, opt):
            opt.zero_grad()
            loss = self.model(batch)
            loss.backward()
            opt.step()
            torch.save(self.model.module.state_dict(), "ckpt.pt")

        @torch.no_grad()
        def validate(self, batch):
            return self.model.module.compute_loss(batch), self.model.module.generate(batch)
    """
    check(src, RULE)


def test_gradients_averaged_by_hand_are_fine():
    src = """
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    def manual(net, loader, opt, world):
        model = DDP(net)
        for x in loader:
            loss = model.module(x).sum()
            loss.backward()
            for p in model.parameters():
                dist.all_reduce(p.grad)
                p.grad /= world
            opt.step()
    """
    check(src, RULE)

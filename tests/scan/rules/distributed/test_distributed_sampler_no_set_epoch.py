"""The ``distributed-sampler-no-set-epoch`` rule (``mlsleuth/scan/rules/distributed/distributed_sampler_no_set_epoch.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

EPOCH = "distributed-sampler-no-set-epoch"


def test_distributed_sampler_without_set_epoch():
    src = """
    from torch.utils.data import DataLoader, DistributedSampler

    def main(ds, model, opt, epochs):
        sampler = DistributedSampler(ds)  # expect: distributed-sampler-no-set-epoch
        loader = DataLoader(ds, batch_size=16, sampler=sampler)
        for epoch in range(epochs):
            for x, y in loader:
                opt.zero_grad()
                model(x).sum().backward()
                opt.step()
    """
    (f,) = findings(src, EPOCH)
    check(src, {EPOCH})
    assert f.category == "distributed"


def test_distributed_sampler_with_set_epoch_or_no_shuffle_or_no_epoch_loop_is_fine():
    with_set_epoch = """
    from torch.utils.data import DataLoader, DistributedSampler

    def main(ds, model, epochs):
        loader = DataLoader(ds, batch_size=16, sampler=DistributedSampler(ds))
        for epoch in range(epochs):
            loader.sampler.set_epoch(epoch)
            for x, y in loader:
                model(x)
    """
    eval_sampler = """
    from torch.utils.data import DataLoader, DistributedSampler

    def evaluate(ds, model, epochs):
        loader = DataLoader(ds, sampler=DistributedSampler(ds, shuffle=False))
        for epoch in range(epochs):
            for x, y in loader:
                model(x)
    """
    framework = """
    from torch.utils.data import DataLoader, DistributedSampler

    def train_dataloader(self):
        return DataLoader(self.ds, sampler=DistributedSampler(self.ds))
    """
    for src in (with_set_epoch, eval_sampler, framework):
        check(src, {EPOCH})

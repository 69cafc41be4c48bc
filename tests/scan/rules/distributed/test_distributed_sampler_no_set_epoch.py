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


def test_set_epoch_called_by_the_training_helper_in_another_module(tmp_path):
    from scan.helpers import check_project

    files = {
        "utils/__init__.py": "",
        "utils/train_utils.py": """
            def train(model, loader, optimizer, epoch, sampler=None):
                if sampler:
                    sampler.set_epoch(epoch)
                for batch in loader:
                    optimizer.zero_grad()
                    model(batch).mean().backward()
                    optimizer.step()
        """,
        "main.py": """
            import torch
            from torch.utils.data import DataLoader, DistributedSampler
            from utils.train_utils import train

            def main(model, train_set, val_set, rank, world):
                sampler1 = DistributedSampler(train_set, rank=rank, num_replicas=world, shuffle=True)
                sampler2 = DistributedSampler(val_set, rank=rank, num_replicas=world)
                loader = DataLoader(train_set, sampler=sampler1)
                opt = torch.optim.AdamW(model.parameters())
                for epoch in range(1, 10):
                    train(model, loader, opt, epoch, sampler=sampler1)
        """,
    }
    check_project(tmp_path, files, {"distributed-sampler-no-set-epoch"})


def test_helper_that_never_sets_the_epoch_keeps_the_finding(tmp_path):
    from scan.helpers import check_project

    files = {
        "loop.py": """
            def train(model, loader, optimizer, epoch):
                for batch in loader:
                    optimizer.zero_grad()
                    model(batch).mean().backward()
                    optimizer.step()
        """,
        "main.py": """
            import torch
            from torch.utils.data import DataLoader, DistributedSampler
            from loop import train

            def main(model, train_set, rank, world):
                sampler = DistributedSampler(train_set, rank=rank, num_replicas=world)  # expect: distributed-sampler-no-set-epoch
                loader = DataLoader(train_set, sampler=sampler)
                opt = torch.optim.AdamW(model.parameters())
                for epoch in range(10):
                    train(model, loader, opt, epoch)
        """,
    }
    check_project(tmp_path, files, {"distributed-sampler-no-set-epoch"})


def test_validation_sampler_order_does_not_matter():
    src = """
        from torch.utils.data import DataLoader, DistributedSampler

        def run(model, val_dataset, evaluate):
            val_sampler = DistributedSampler(val_dataset)
            loader = DataLoader(val_dataset, sampler=val_sampler)
            for epoch in range(3):
                evaluate(model, loader)
        """
    check(src, {"distributed-sampler-no-set-epoch"})

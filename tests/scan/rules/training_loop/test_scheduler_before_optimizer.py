"""The ``scheduler-before-optimizer`` rule (``mlsleuth/scan/rules/training_loop/scheduler_before_optimizer.py``)."""

from __future__ import annotations

from scan.helpers import check, messages

SCHED = {"scheduler-before-optimizer", "epoch-scheduler-stepped-per-batch", "step-scheduler-stepped-per-epoch"}


def test_scheduler_before_optimizer_at_top_of_epoch():
    src = """
        import torch
        from torch.optim.lr_scheduler import StepLR

        def fit(model, loader, epochs):
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            sched = StepLR(opt, step_size=10)
            for epoch in range(epochs):
                sched.step()  # expect: scheduler-before-optimizer
                for x, y in loader:
                    opt.zero_grad()
                    model(x, y).backward()
                    opt.step()
        """
    check(src, SCHED)
    (f,) = messages(src, "scheduler-before-optimizer")
    assert "line 9" in f.message and "line 13" in f.message

"""The ``step-scheduler-stepped-per-epoch`` rule (``mlsleuth/scan/rules/hyperparameter/step_scheduler_stepped_per_epoch.py``)."""

from __future__ import annotations

from scan.helpers import check

SCHED = {"scheduler-before-optimizer", "epoch-scheduler-stepped-per-batch", "step-scheduler-stepped-per-epoch"}


def test_onecycle_stepped_per_epoch():
    src = """
        import torch
        from torch.optim.lr_scheduler import OneCycleLR as OC

        def fit(model, loader, epochs):
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            sched = OC(opt, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader))
            for epoch in range(epochs):
                for x, y in loader:
                    opt.zero_grad()
                    model(x, y).backward()
                    opt.step()
                sched.step()  # expect: step-scheduler-stepped-per-epoch
        """
    check(src, SCHED)


def test_warmup_schedule_per_batch_and_onecycle_sized_in_epochs_are_fine():
    check(
        """
        import torch
        from transformers import get_linear_schedule_with_warmup
        from torch.optim.lr_scheduler import OneCycleLR

        def fit(model, loader, epochs):
            opt = torch.optim.AdamW(model.parameters())
            warm = get_linear_schedule_with_warmup(opt, 100, len(loader) * epochs)
            cyc = OneCycleLR(opt, max_lr=0.1, epochs=epochs, steps_per_epoch=1)
            for epoch in range(epochs):
                for x, y in loader:
                    opt.zero_grad()
                    model(x, y).backward()
                    opt.step()
                    warm.step()
                cyc.step()
        """,
        SCHED,
    )

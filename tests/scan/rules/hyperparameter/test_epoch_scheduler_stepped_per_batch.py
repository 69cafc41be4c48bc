"""The ``epoch-scheduler-stepped-per-batch`` rule (``mlsleuth/scan/rules/hyperparameter/epoch_scheduler_stepped_per_batch.py``)."""

from __future__ import annotations

from scan.helpers import check, messages

SCHED = {"scheduler-before-optimizer", "epoch-scheduler-stepped-per-batch", "step-scheduler-stepped-per-epoch"}


def test_epoch_scheduler_stepped_per_batch_in_helper():
    src = """
        import torch.optim as optim

        def train_one_epoch(model, loader, optimizer, scheduler):
            for x, y in loader:
                optimizer.zero_grad()
                model(x, y).backward()
                optimizer.step()
                scheduler.step()  # expect: epoch-scheduler-stepped-per-batch

        def main(model, loader):
            optimizer = optim.SGD(model.parameters(), lr=0.1)
            scheduler = optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=100)
            for epoch in range(100):
                train_one_epoch(model, loader, optimizer, scheduler)
        """
    check(src, SCHED)
    (f,) = messages(src, "epoch-scheduler-stepped-per-batch")
    assert "CosineAnnealingLR (built at line 13)" in f.message and "called at line 15" in f.message


def test_per_step_schedules_per_batch_and_plateau_per_epoch_are_fine():
    check(
        """
        import torch
        from torch.optim import lr_scheduler as S

        def fit(model, loader, val, epochs):
            opt = torch.optim.AdamW(model.parameters())
            cos = S.CosineAnnealingLR(opt, T_max=len(loader) * epochs)
            plateau = S.ReduceLROnPlateau(opt)
            for epoch in range(epochs):
                for x, y in loader:
                    opt.zero_grad()
                    model(x, y).backward()
                    opt.step()
                    cos.step()
                val_loss = val(model)
                plateau.step(val_loss)
        """,
        SCHED,
    )


def test_scheduler_seen_through_accelerator_prepare():
    src = """
        import torch
        from accelerate import Accelerator

        def train(build, loader, epochs=100):
            accelerator = Accelerator()
            model = build()
            optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
            scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
            loader, model, optimizer, scheduler = accelerator.prepare(loader, model, optimizer, scheduler)
            for ep in range(epochs):
                train_one_epoch(model, loader, optimizer, scheduler, accelerator)

        def train_one_epoch(model, loader, optimizer, scheduler, accelerator):
            model.train()
            for batch in loader:
                optimizer.zero_grad()
                accelerator.backward(model(batch).loss)
                optimizer.step()
                scheduler.step()  # expect: epoch-scheduler-stepped-per-batch
        """
    check(src, SCHED)

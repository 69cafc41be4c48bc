"""The ``scheduler-stepped-per-micro-batch`` rule (``mlsleuth/scan/rules/hyperparameter/scheduler_stepped_per_micro_batch.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

SM = {"scheduler-stepped-per-micro-batch"}


def test_hf_style_loop_with_schedule_in_updates():
    check(
        """
        import torch
        from transformers import get_linear_schedule_with_warmup

        def train(model, loader, args):
            optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
            t_total = len(loader) // args.gradient_accumulation_steps * args.epochs
            scheduler = get_linear_schedule_with_warmup(optimizer, args.warmup_steps, t_total)
            for epoch in range(args.epochs):
                for step, batch in enumerate(loader):
                    loss = model(**batch).loss / args.gradient_accumulation_steps
                    loss.backward()
                    if (step + 1) % args.gradient_accumulation_steps == 0:
                        optimizer.step()
                        optimizer.zero_grad()
                    scheduler.step()  # expect: scheduler-stepped-per-micro-batch
        """,
        SM,
    )


def test_torch_cosine_with_inline_division():
    check(
        """
        import torch

        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs * len(loader) // accum_steps)
        for epoch in range(epochs):
            for i, (x, y) in enumerate(loader):
                (criterion(model(x), y) / accum_steps).backward()
                if (i + 1) % accum_steps == 0:
                    opt.step()
                    opt.zero_grad()
                sched.step()  # expect: scheduler-stepped-per-micro-batch
        """,
        SM,
    )


def test_message():
    got = findings(
        """
        import torch
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=n // grad_accum)
        for i, b in enumerate(loader):
            model(b).mean().div(grad_accum).backward()
            if (i + 1) % grad_accum == 0:
                opt.step(); opt.zero_grad()
            sched.step()
        """,
        "scheduler-stepped-per-micro-batch",
    )
    assert len(got) == 1 and "`sched`" in got[0].message


def test_stepped_with_the_optimizer_or_sized_in_batches_is_fine():
    check(
        """
        import torch
        from transformers import get_linear_schedule_with_warmup

        def a(model, loader, args):
            optimizer = torch.optim.AdamW(model.parameters())
            t_total = len(loader) // args.gradient_accumulation_steps * args.epochs
            scheduler = get_linear_schedule_with_warmup(optimizer, 0, t_total)
            for step, batch in enumerate(loader):
                model(**batch).loss.backward()
                if (step + 1) % args.gradient_accumulation_steps == 0:
                    optimizer.step()
                    scheduler.step()
                    optimizer.zero_grad()

        def b(model, loader, args):
            optimizer = torch.optim.AdamW(model.parameters())
            scheduler = get_linear_schedule_with_warmup(optimizer, 0, len(loader) * args.epochs)
            for step, batch in enumerate(loader):
                model(**batch).loss.backward()
                if (step + 1) % args.gradient_accumulation_steps == 0:
                    optimizer.step()
                    optimizer.zero_grad()
                scheduler.step()
        """,
        SM,
    )

"""The ``schedule-units-vs-accumulation`` rule (``mlsleuth/scan/rules/hyperparameter/schedule_units_vs_accumulation.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"schedule-units-vs-accumulation"}


def test_update_sized_schedule_stepped_per_micro_batch():
    src = """
        import math
        import torch
        from accelerate import Accelerator
        from transformers import get_linear_schedule_with_warmup

        def train(model, loader, epochs, accum_steps):
            accelerator = Accelerator(gradient_accumulation_steps=accum_steps)
            opt = torch.optim.AdamW(model.parameters())
            model, opt, loader = accelerator.prepare(model, opt, loader)
            total = epochs * (len(loader) // accum_steps)
            sched = get_linear_schedule_with_warmup(opt, num_warmup_steps=100, num_training_steps=total)
            for epoch in range(epochs):
                for batch in loader:
                    with accelerator.accumulate(model):
                        accelerator.backward(model(**batch).loss)
                        opt.step()
                        sched.step()  # expect: schedule-units-vs-accumulation
                        opt.zero_grad()
        """
    check(src, RULE)


def test_prepared_schedule_lengthened_by_the_accumulation_factor():
    src = """
        import torch
        from accelerate import Accelerator
        from torch.optim.lr_scheduler import OneCycleLR

        def train(model, loader, args):
            accelerator = Accelerator(gradient_accumulation_steps=args.grad_accum_steps)
            opt = torch.optim.AdamW(model.parameters())
            updates = args.epochs * len(loader)
            sched = OneCycleLR(opt, max_lr=1e-3, total_steps=updates * args.grad_accum_steps)  # expect: schedule-units-vs-accumulation
            model, opt, loader, sched = accelerator.prepare(model, opt, loader, sched)
            for batch in loader:
                with accelerator.accumulate(model):
                    accelerator.backward(model(batch))
                    opt.step()
                    sched.step()
                    opt.zero_grad()
        """
    check(src, RULE)


def test_consistent_units_stay_silent():
    src = """
        import torch
        from accelerate import Accelerator
        from transformers import get_cosine_schedule_with_warmup

        def guarded(model, loader, epochs, accum):
            accelerator = Accelerator(gradient_accumulation_steps=accum)
            opt = torch.optim.AdamW(model.parameters())
            sched = get_cosine_schedule_with_warmup(opt, 10, epochs * len(loader) // accum)
            for batch in loader:
                with accelerator.accumulate(model):
                    accelerator.backward(model(batch))
                    opt.step()
                    if accelerator.sync_gradients:
                        sched.step()

        def prepared_in_updates(model, loader, epochs, accum):
            accelerator = Accelerator(gradient_accumulation_steps=accum)
            opt = torch.optim.AdamW(model.parameters())
            sched = get_cosine_schedule_with_warmup(opt, 10, epochs * len(loader) // accum)
            model, opt, loader, sched = accelerator.prepare(model, opt, loader, sched)
            for batch in loader:
                with accelerator.accumulate(model):
                    accelerator.backward(model(batch))
                    opt.step()
                    sched.step()

        def plain_in_micro_batches(model, loader, epochs, accum):
            accelerator = Accelerator(gradient_accumulation_steps=accum)
            opt = torch.optim.AdamW(model.parameters())
            sched = get_cosine_schedule_with_warmup(opt, 10 * accum, epochs * len(loader))
            for batch in loader:
                with accelerator.accumulate(model):
                    accelerator.backward(model(batch))
                    opt.step()
                    sched.step()
        """
    check(src, RULE)

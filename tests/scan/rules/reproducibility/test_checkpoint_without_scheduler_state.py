"""The ``checkpoint-without-scheduler-state`` rule (``mlsleuth/scan/rules/reproducibility/checkpoint_without_scheduler_state.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"checkpoint-without-scheduler-state"}


def test_checkpoint_dict_without_the_scheduler():
    src = """
        import torch

        def fit(model, loader, epochs, path):
            opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
            sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-4, total_steps=epochs * len(loader))
            for epoch in range(epochs):
                for x, y in loader:
                    loss = model(x, y)
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    sched.step()
                ckpt = {"epoch": epoch, "model": model.state_dict(),
                        "opt": opt.state_dict()}  # expect: checkpoint-without-scheduler-state
                torch.save(ckpt, path)
        """
    check(src, RULE)


def test_scheduler_from_a_helper_module_and_a_fabric_state(tmp_path):
    check_project(
        tmp_path,
        {
            "sched.py": """
                from transformers import get_cosine_schedule_with_warmup

                def make_schedule(optimizer, total):
                    return get_cosine_schedule_with_warmup(optimizer, 100, total)
                """,
            "train.py": """
                import torch
                from sched import make_schedule

                def run(fabric, model, loader, total):
                    optimizer = torch.optim.AdamW(model.parameters())
                    scheduler = make_schedule(optimizer, total)
                    state = {"model": model, "optimizer": optimizer, "step": 0}  # expect: checkpoint-without-scheduler-state
                    for batch in loader:
                        fabric.backward(model(batch))
                        optimizer.step()
                        optimizer.zero_grad()
                        scheduler.step()
                        state["step"] += 1
                    fabric.save("last.ckpt", state)
                """,
        },
        RULE,
    )


def test_scheduler_saved_or_absent_stays_silent():
    src = """
        import torch

        def with_scheduler(model, loader, path):
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            sched = torch.optim.lr_scheduler.StepLR(opt, 30)
            for x, y in loader:
                model(x, y).backward()
                opt.step()
                opt.zero_grad()
            sched.step()
            torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                        "scheduler": sched.state_dict()}, path)

        def separately(model, loader, path):
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            sched = torch.optim.lr_scheduler.StepLR(opt, 30)
            sched.step()
            torch.save({"model": model.state_dict(), "optimizer": opt.state_dict()}, path)
            torch.save(sched.state_dict(), path + ".sched")

        def manual_lr(model, loader, path, base_lr=0.1):
            opt = torch.optim.SGD(model.parameters(), lr=base_lr)
            for step, (x, y) in enumerate(loader):
                for group in opt.param_groups:
                    group["lr"] = base_lr * min(1.0, step / 1000)
                model(x, y).backward()
                opt.step()
                opt.zero_grad()
            torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "step": step}, path)

        def weights_only(model, path):
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            sched = torch.optim.lr_scheduler.StepLR(opt, 30)
            sched.step()
            torch.save({"model": model.state_dict()}, path)
        """
    check(src, RULE)


def test_scheduler_put_back_at_the_restored_epoch_stays_silent():
    # a stateless per-epoch schedule (a lambda of the epoch) is rebuilt on resume and moved to the saved epoch
    check(
        """
        import math
        import torch

        def fit(model, loader, epochs, path, resume=None):
            opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
            cosine = lambda e: 0.5 * (1 + math.cos(math.pi * e / epochs))
            sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda=cosine)
            first = 0
            if resume:
                state = torch.load(resume)
                opt.load_state_dict(state["optimizer"])
                first = state["epoch"] + 1
            sched.last_epoch = first - 1
            for epoch in range(first, epochs):
                for x, y in loader:
                    loss = model(x, y)
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                sched.step()
                torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": opt.state_dict()}, path)

        def fit_warm(model, loader, epochs, path, start):
            opt = torch.optim.SGD(model.parameters(), lr=0.01)
            for group in opt.param_groups:
                group.setdefault("initial_lr", 0.01)
            sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30, last_epoch=start - 1)
            for epoch in range(start, epochs):
                for x, y in loader:
                    opt.zero_grad()
                    model(x, y).backward()
                    opt.step()
                sched.step()
                torch.save({"epoch": epoch, "optimizer": opt.state_dict()}, path)
        """,
        RULE,
    )

"""The ``no-sync-window-misaligned`` rule (``mlsleuth/scan/rules/distributed/no_sync_window_misaligned.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"no-sync-window-misaligned"}


def test_sync_on_the_first_micro_batch_step_after_the_last():
    check(
        """
        import contextlib

        def train(model, opt, loader, cfg):
            accum = cfg["accum_steps"]
            for step, (x, y) in enumerate(loader):
                ctx = model.no_sync() if step % accum != 0 else contextlib.nullcontext()  # expect: no-sync-window-misaligned
                with ctx:
                    (model(x, y) / accum).backward()
                if (step + 1) % accum == 0:
                    opt.step()
                    opt.zero_grad()

        def train2(model, opt, loader, accum):
            for step, (x, y) in enumerate(loader):
                with (model.no_sync() if step % accum else contextlib.nullcontext()):  # expect: no-sync-window-misaligned
                    (model(x, y) / accum).backward()
                if (step + 1) % accum == 0:
                    opt.step()
        """,
        RULE,
    )


def test_if_else_with_no_sync_and_a_named_test():
    check(
        """
        def train(model, optimizer, scaler, loader, grad_accum):
            for epoch in range(10):
                for i, batch in enumerate(loader):
                    boundary = i % grad_accum == 0
                    if not boundary:  # expect: no-sync-window-misaligned
                        with model.no_sync():
                            scaler.scale(model(batch)).backward()
                    else:
                        scaler.scale(model(batch)).backward()
                    if (i + 1) % grad_accum == 0:
                        scaler.step(optimizer)
                        scaler.update()
                        optimizer.zero_grad()
        """,
        RULE,
    )


def test_require_backward_grad_sync_flag_off_by_one():
    check(
        """
        def fit(ddp, opt, sched, loader, k):
            it = 0
            for batch in loader:
                ddp.require_backward_grad_sync = it % k == k - 1  # expect: no-sync-window-misaligned
                ddp(batch).backward()
                if it % k == 0:
                    opt.step()
                    sched.step()
                it += 1
        """,
        RULE,
    )


def test_aligned_windows_written_in_different_ways_are_fine():
    check(
        """
        import contextlib

        def a(model, opt, loader, accum):
            for step in range(1, 100):  # counter from 1: step % accum == 0 is the last micro-batch
                ctx = model.no_sync() if step % accum != 0 else contextlib.nullcontext()
                with ctx:
                    model(step).backward()
                if step % accum == 0:
                    opt.step()

        def b(model, opt, loader, accum):
            for i, batch in enumerate(loader):
                sync = (i + 1) % accum == 0
                with (contextlib.nullcontext() if sync else model.no_sync()):
                    model(batch).backward()
                if i % accum == accum - 1 or i == len(loader) - 1:
                    opt.step()
                    opt.zero_grad()

        def c(model, opt, loader, accum, warm):
            gstep = 0
            for i, batch in enumerate(loader):
                ctx = model.no_sync() if (i + 1) % accum else contextlib.nullcontext()
                with ctx:
                    model(batch).backward()
                if gstep % warm == 0:   # another counter, another modulus: not comparable
                    opt.step()
                gstep += 1
        """,
        RULE,
    )

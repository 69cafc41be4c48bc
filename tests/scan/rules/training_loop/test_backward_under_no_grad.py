"""The ``backward-under-no-grad`` rule (``mlsleuth/scan/rules/training_loop/backward_under_no_grad.py``)."""

from __future__ import annotations

from scan.helpers import check


def test_backward_under_no_grad_decorator_and_block():
    check(
        """
        import torch

        @torch.no_grad()
        def train_epoch(model, loader, opt, crit):
            for x, y in loader:
                opt.zero_grad()
                loss = crit(model(x), y)
                loss.backward()  # expect: backward-under-no-grad
                opt.step()

        def train2(model, loader, opt, crit):
            for x, y in loader:
                opt.zero_grad()
                with torch.no_grad():
                    loss = crit(model(x), y)
                    loss.backward()  # expect: backward-under-no-grad
                opt.step()
        """,
        {"backward-under-no-grad"},
    )


def test_no_grad_for_frozen_teacher_only_is_fine():
    check(
        """
        import torch

        def distill(student, teacher, loader, opt, crit):
            for x, y in loader:
                with torch.no_grad():
                    soft = teacher(x).softmax(-1)
                opt.zero_grad()
                loss = crit(student(x), soft)
                loss.backward()
                opt.step()

        def odd_but_valid(model, loader, opt, crit):
            for x, y in loader:
                opt.zero_grad()
                loss = crit(model(x), y)
                with torch.no_grad():
                    loss.backward()
                opt.step()
        """,
        {"backward-under-no-grad"},
    )

"""The ``step-before-backward`` rule (``mlsleuth/scan/rules/training_loop/step_before_backward.py``)."""

from __future__ import annotations

from scan.helpers import check, messages

ZG = {"missing-zero-grad", "zero-grad-between-backward-and-step", "step-before-backward"}


def test_step_before_backward_with_zero_grad_first():
    src = """
        import torch
        def train(model, loader):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
            for x, y in loader:
                optimizer.zero_grad()
                optimizer.step()  # expect: step-before-backward
                loss = model(x, y)
                loss.backward()
        """
    check(src, ZG)
    (f,) = messages(src, "step-before-backward")
    assert "zero_grad at line 6" in f.message and "does not learn" in f.message


def test_step_at_top_guarded_by_condition_is_not_flagged():
    check(
        """
        def train(model, loader, opt, k):
            for i, x in enumerate(loader):
                if i > 0 and i % k == 0:
                    opt.step()
                    opt.zero_grad()
                (model(x).sum() / k).backward()
        """,
        ZG,
    )

"""The ``zero-grad-between-backward-and-step`` rule (``mlsleuth/scan/rules/training_loop/zero_grad_between_backward_and_step.py``)."""

from __future__ import annotations

from scan.helpers import check, messages

ZG = {"missing-zero-grad", "zero-grad-between-backward-and-step", "step-before-backward"}


def test_zero_grad_between_backward_and_step_in_helper_method():
    src = """
        from torch import optim

        class Trainer:
            def __init__(self, model):
                self.model = model
                self.opt = optim.Adam(model.parameters(), lr=1e-3)

            def update(self, loss):
                loss.backward()
                self.opt.zero_grad()  # expect: zero-grad-between-backward-and-step
                self.opt.step()

            def fit(self, loader):
                for x, y in loader:
                    self.update(self.model(x, y))
        """
    check(src, ZG)
    (f,) = messages(src, "zero-grad-between-backward-and-step")
    assert "zero_grad at line 11" in f.message and "backward at line 10" in f.message and "line 12" in f.message


def test_zero_grad_in_a_branch_that_skips_the_step_is_fine():
    # a non-finite gradient norm skips the update: clear the gradients and go to the next batch
    src = """
        import torch

        def train(model, loader, opt, loss_fn):
            for x, y in loader:
                loss = loss_fn(model(x), y)
                loss.backward()
                norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                if not torch.isfinite(norm):
                    opt.zero_grad(set_to_none=True)
                    continue
                opt.step()
                opt.zero_grad()

        def train_wipes(model, loader, opt, loss_fn):
            for x, y in loader:
                loss = loss_fn(model(x), y)
                loss.backward()
                if loss.item() > 10:
                    opt.zero_grad()  # expect: zero-grad-between-backward-and-step
                opt.step()
        """
    check(src, ZG)

"""The ``backward-bypasses-accelerator`` rule (``mlsleuth/scan/rules/training_loop/backward_bypasses_accelerator.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"backward-bypasses-accelerator"}


def test_plain_backward_inside_accumulate():
    src = """
        from accelerate import Accelerator

        accelerator = Accelerator(gradient_accumulation_steps=4)

        def train(model, optimizer, loader, criterion):
            model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
            for xb, yb in loader:
                with accelerator.accumulate(model):
                    loss = criterion(model(xb), yb)
                    loss.backward()  # expect: backward-bypasses-accelerator
                    optimizer.step()
                    optimizer.zero_grad()
        """
    check(src, RULE)


def test_backward_in_a_helper_called_inside_accumulate():
    src = """
        def step(loss, optimizer):
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()

        def train(accelerator, model, optimizer, loader, criterion):
            for xb, yb in loader:
                with accelerator.accumulate(model):
                    step(criterion(model(xb), yb), optimizer)  # expect: backward-bypasses-accelerator
        """
    check(src, RULE)


def test_accelerator_backward_and_lookalikes_stay_silent():
    src = """
        def good(accelerator, model, optimizer, loader, criterion):
            for xb, yb in loader:
                with accelerator.accumulate(model):
                    loss = criterion(model(xb), yb)
                    accelerator.backward(loss)
                    optimizer.step()
                    optimizer.zero_grad()

        def no_accumulate(accelerator, model, optimizer, loader, criterion):
            # without accumulate(), a plain backward on one process computes the same gradients
            for xb, yb in loader:
                loss = criterion(model(xb), yb)
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()

        def fabric_style(self, model, optimizer, loader, criterion):
            for xb, yb in loader:
                with self.accel.accumulate(model):
                    self.accel.backward(criterion(model(xb), yb))
                    optimizer.step()
                    optimizer.zero_grad()
        """
    check(src, RULE)


def test_a_helper_whose_flag_picks_the_accelerator_branch_is_fine():
    # one step helper serves a plain reference model (manual scaling and backward) and the accelerated one;
    # the literal flag at each call site decides which branch runs there
    check(
        """
        import torch.nn.functional as F

        def run_step(model, x, y, accelerator, use_accelerator=True):
            loss = F.mse_loss(model(x), y)
            if not use_accelerator:
                loss = loss / accelerator.gradient_accumulation_steps
                loss.backward()
            else:
                accelerator.backward(loss)

        def compare(accelerator, ref_model, model, opt, loader):
            for x, y in loader:
                run_step(ref_model, x, y, accelerator, False)
                with accelerator.accumulate(model):
                    run_step(model, x, y, accelerator)
                    opt.step()
                    opt.zero_grad()
                with accelerator.accumulate(model):
                    run_step(model, x, y, accelerator, use_accelerator=False)  # expect: backward-bypasses-accelerator
                    opt.step()
                    opt.zero_grad()
        """,
        RULE | {"loss-divided-under-accelerate-accumulate"},
    )

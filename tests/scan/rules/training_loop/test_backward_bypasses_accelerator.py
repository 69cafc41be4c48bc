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

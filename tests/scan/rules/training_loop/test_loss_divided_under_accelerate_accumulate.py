"""The ``loss-divided-under-accelerate-accumulate`` rule (``mlsleuth/scan/rules/training_loop/loss_divided_under_accelerate_accumulate.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"loss-divided-under-accelerate-accumulate"}


def test_loss_divided_by_the_accumulation_steps_then_accelerator_backward():
    src = """
        from accelerate import Accelerator

        ACCUM = 8
        accelerator = Accelerator(gradient_accumulation_steps=ACCUM)

        def train(model, optimizer, loader, criterion):
            for xb, yb in loader:
                with accelerator.accumulate(model):
                    loss = criterion(model(xb), yb) / ACCUM
                    accelerator.backward(loss)  # expect: loss-divided-under-accelerate-accumulate
                    optimizer.step()
                    optimizer.zero_grad()
        """
    check(src, RULE)


def test_in_place_division_by_a_config_field():
    src = """
        def train(accelerator, args, model, optimizer, loader):
            for batch in loader:
                with accelerator.accumulate(model):
                    loss = model(**batch).loss
                    loss /= args.gradient_accumulation_steps
                    accelerator.backward(loss)  # expect: loss-divided-under-accelerate-accumulate
                    optimizer.step()
                    optimizer.zero_grad()
        """
    check(src, RULE)


def test_undivided_loss_and_other_divisions_stay_silent():
    src = """
        def good(accelerator, model, optimizer, loader, criterion):
            for xb, yb in loader:
                with accelerator.accumulate(model):
                    loss = criterion(model(xb), yb)
                    accelerator.backward(loss)
                    optimizer.step()
                    optimizer.zero_grad()

        def token_mean(accelerator, model, optimizer, loader):
            # dividing a summed loss by the token count is a mean, not the accumulation
            for batch in loader:
                with accelerator.accumulate(model):
                    loss = model(**batch).loss_sum / batch["n_tokens"]
                    accelerator.backward(loss)
                    optimizer.step()
                    optimizer.zero_grad()

        def manual_loop(accelerator, model, optimizer, loader, criterion, accum_steps):
            # a hand-written accumulation without accumulate(): dividing is right here
            for i, (xb, yb) in enumerate(loader):
                loss = criterion(model(xb), yb) / accum_steps
                accelerator.backward(loss)
                if (i + 1) % accum_steps == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """
    check(src, RULE)

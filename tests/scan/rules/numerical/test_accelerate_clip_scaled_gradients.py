"""The ``accelerate-clip-scaled-gradients`` rule (``mlsleuth/scan/rules/numerical/accelerate_clip_scaled_gradients.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

AC = {"accelerate-clip-scaled-gradients"}


def test_literal_fp16_and_torch_clip():
    check(
        """
        import torch
        from accelerate import Accelerator

        accelerator = Accelerator(mixed_precision="fp16")
        model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
        for batch in loader:
            loss = model(**batch).loss
            accelerator.backward(loss)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: accelerate-clip-scaled-gradients
            optimizer.step()
            optimizer.zero_grad()
        """,
        AC,
    )


def test_argparse_default_and_helper_class():
    check(
        """
        import argparse
        from accelerate import Accelerator
        from torch.nn.utils import clip_grad_value_

        def main():
            parser = argparse.ArgumentParser()
            parser.add_argument("--mixed_precision", default="fp16")
            args = parser.parse_args()
            accelerator = Accelerator(mixed_precision=args.mixed_precision, gradient_accumulation_steps=2)
            model, opt, dl = accelerator.prepare(build(), make_opt(), data())
            for step, batch in enumerate(dl):
                with accelerator.accumulate(model):
                    loss = model(batch).mean()
                    accelerator.backward(loss)
                    if accelerator.sync_gradients:
                        clip_grad_value_(model.parameters(), 0.5)  # expect: accelerate-clip-scaled-gradients
                    opt.step()
                    opt.zero_grad()
        """,
        AC,
    )


def test_message():
    got = findings(
        """
        import torch
        from accelerate import Accelerator
        accelerator = Accelerator(mixed_precision="fp16")
        for batch in loader:
            accelerator.backward(model(batch).mean())
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
        """,
        "accelerate-clip-scaled-gradients",
    )
    assert len(got) == 1 and "accelerator.clip_grad_norm_" in got[0].message


def test_accelerator_clip_unscaled_or_other_precisions_are_fine():
    check(
        """
        import torch
        from accelerate import Accelerator

        def a(model, optimizer, loader):
            accelerator = Accelerator(mixed_precision="fp16")
            for batch in loader:
                accelerator.backward(model(batch).mean())
                accelerator.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()

        def b(model, optimizer, loader, precision="bf16"):
            accelerator = Accelerator(mixed_precision=precision)
            for batch in loader:
                accelerator.backward(model(batch).mean())
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()

        def c(model, optimizer, loader):
            accelerator = Accelerator()
            for batch in loader:
                accelerator.backward(model(batch).mean())
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
        """,
        AC,
    )


def test_unscaled_by_hand_is_fine():
    check(
        """
        import torch
        from accelerate import Accelerator

        accelerator = Accelerator(mixed_precision="fp16")
        for batch in loader:
            accelerator.backward(model(batch).mean())
            accelerator.unscale_gradients()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
        """,
        AC,
    )

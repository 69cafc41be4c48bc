"""The ``clip-grad-misplaced`` rule (``mlsleuth/scan/rules/training_loop/clip_grad_misplaced.py``)."""

from __future__ import annotations

from scan.helpers import check

CLIP = {"clip-grad-misplaced", "clip-grad-without-unscale"}


def test_clip_after_step_and_before_backward():
    check(
        """
        import torch
        from torch.nn.utils import clip_grad_norm_

        def a(model, loader, opt):
            for x in loader:
                opt.zero_grad()
                model(x).sum().backward()
                opt.step()
                clip_grad_norm_(model.parameters(), 1.0)  # expect: clip-grad-misplaced

        def b(model, loader, opt):
            for x in loader:
                opt.zero_grad()
                torch.nn.utils.clip_grad_value_(model.parameters(), 0.5)  # expect: clip-grad-misplaced
                model(x).sum().backward()
                opt.step()
        """,
        CLIP,
    )


def test_clip_correct_placements_are_fine():
    check(
        """
        import torch

        def a(model, loader, opt):
            for x in loader:
                opt.zero_grad()
                model(x).sum().backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()

        def b(model, loader, opt, scaler):
            for x in loader:
                opt.zero_grad()
                scaler.scale(model(x).sum()).backward()
                scaler.unscale_(opt)
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                scaler.step(opt)
                scaler.update()
        """,
        CLIP,
    )

"""The ``clip-grad-without-unscale`` rule (``mlsleuth/scan/rules/numerical/clip_grad_without_unscale.py``)."""

from __future__ import annotations

from scan.helpers import check

CLIP = {"clip-grad-misplaced", "clip-grad-without-unscale"}


def test_clip_under_scaler_without_unscale():
    src = """
        import torch

        def train(model, loader, opt):
            scaler = torch.amp.GradScaler("cuda")
            for x in loader:
                opt.zero_grad()
                with torch.autocast("cuda"):
                    loss = model(x).sum()
                scaler.scale(loss).backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: clip-grad-without-unscale
                scaler.step(opt)
                scaler.update()
        """
    check(src, CLIP)

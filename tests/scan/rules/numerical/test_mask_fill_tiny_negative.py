"""The ``mask-fill-tiny-negative`` rule (``mlsleuth/scan/rules/numerical/mask_fill_tiny_negative.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = "mask-fill-tiny-negative"


def test_tiny_negative_fill_before_softmax_flags():
    src = """
    import torch
    import torch.nn.functional as F

    def attend(q, k, v, pad):
        scores = q @ k.transpose(-1, -2)
        scores = scores.masked_fill(pad, -1e-10)  # expect: mask-fill-tiny-negative
        return F.softmax(scores / 8.0, dim=-1) @ v

    def pointer(logits, valid):
        return torch.log_softmax(logits.masked_fill(~valid, -1e-6), dim=1)  # expect: mask-fill-tiny-negative
    """
    check(src, {RULE})


def test_large_fills_and_epsilons_are_fine():
    src = """
    import torch
    import torch.nn.functional as F

    def attend(q, k, v, pad):
        scores = q @ k.transpose(-1, -2)
        scores = scores.masked_fill(pad, torch.finfo(scores.dtype).min)
        weights = scores.softmax(-1)
        return weights @ v

    def causal(scores, future):
        return F.softmax(scores.masked_fill(future, -1e9), dim=-1)

    def masked_mean(x, keep):
        x = x.masked_fill(~keep, -1e-9)
        return x.sum(1) / (keep.sum(1) + 1e-9)
    """
    check(src, {RULE})

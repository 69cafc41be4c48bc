"""The ``where-guard-nan-gradient`` rule (``mlsleuth/scan/rules/numerical/where_guard_nan_gradient.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

RULE = {"where-guard-nan-gradient"}


def test_log_and_sqrt_guarded_by_a_comparison_of_their_argument():
    src = """
    import torch

    def entropy_term(p):
        return -(p * torch.where(p > 0, torch.log(p), torch.zeros_like(p))).sum(-1)  # expect: where-guard-nan-gradient

    def signed_root(x):
        return torch.where(x >= 0, x.sqrt(), -(-x).sqrt())  # expect: where-guard-nan-gradient
    """
    check(src, RULE)


def test_division_guarded_through_a_mask_name_in_a_module_forward():
    src = """
    import torch
    import torch.nn as nn

    class MaskedMean(nn.Module):
        def forward(self, x, mask):
            total = (x * mask).sum(1)
            count = mask.sum(1)
            nonempty = count > 0
            return torch.where(nonempty, total / count, torch.zeros_like(total))  # expect: where-guard-nan-gradient
    """
    check(src, RULE)


def test_fractional_power_and_method_spellings_in_a_loss():
    src = """
    import torch

    class ChamferLoss(torch.nn.Module):
        def forward(self, d2):
            dist = torch.where(d2 > 1e-12, d2 ** 0.5, torch.zeros_like(d2))  # expect: where-guard-nan-gradient
            return dist.mean()

    def inverse_depth(depth):
        return torch.where(depth != 0, depth.reciprocal(), depth)  # expect: where-guard-nan-gradient
    """
    check(src, RULE)


def test_double_where_and_clamped_arguments_are_fine():
    src = """
    import torch

    def safe_log(p):
        safe = torch.where(p > 0, p, torch.ones_like(p))
        return torch.where(p > 0, torch.log(safe), torch.zeros_like(p))

    def safe_root(d2):
        return torch.where(d2 > 0, torch.sqrt(d2.clamp_min(1e-12)), torch.zeros_like(d2))

    def masked_mean(total, count):
        return torch.where(count > 0, total / count.clamp_min(1), total)

    def unrelated_condition(x, y):
        return torch.where(y > 0, torch.log(x), x)
    """
    check(src, RULE)


def test_no_grad_code_numpy_where_and_custom_autograd_functions_are_fine():
    src = """
    import numpy as np
    import torch

    @torch.no_grad()
    def psnr(mse):
        return torch.where(mse > 0, 10 * torch.log10(1.0 / mse), torch.full_like(mse, 100.0))

    def np_entropy(p):
        return -(p * np.where(p > 0, np.log(p), 0)).sum()

    class SafeLog(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return torch.where(x > 0, torch.log(x), torch.zeros_like(x))

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return torch.where(x > 0, g / x, torch.zeros_like(x))
    """
    check(src, RULE)


def test_message_says_why_the_forward_guard_is_not_enough():
    src = """
    import torch

    def f(x):
        return torch.where(x > 0, torch.log(x), x)
    """
    (f,) = findings(src, "where-guard-nan-gradient")
    assert "NaN gradient" in f.message and "log of" in f.message


def test_counts_of_comparisons_and_upper_bound_guards_are_left_alone():
    src = """
    import torch

    def stability(mask_logits, delta):
        area_i = torch.sum(mask_logits > delta, dim=-1).float()
        area_u = (mask_logits > -delta).sum(-1).float()
        return torch.where(area_u > 0, area_i / area_u, 1.0)

    def support(scale, concentration, lower):
        return torch.where(concentration < 0, lower - scale / concentration, torch.inf)
    """
    check(src, RULE)


def test_differentiable_numerator_over_a_count_is_still_reported():
    src = """
    import torch

    def masked_mean(loss, valid):
        n = valid.sum(1).float()
        s = (loss * valid).sum(1)
        return torch.where(n > 0, s / n, torch.zeros_like(s))  # expect: where-guard-nan-gradient
    """
    check(src, RULE)

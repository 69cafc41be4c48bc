"""The ``log-of-probability-without-eps`` rule (``mlsleuth/scan/rules/numerical/log_of_probability_without_eps.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

RULE = {"log-of-probability-without-eps"}


def test_focal_and_hand_written_bce_on_probabilities_passed_in():
    src = """
        import torch
        import torch.nn as nn

        class FocalLoss(nn.Module):
            def __init__(self, gamma=2.0):
                super().__init__()
                self.gamma = gamma

            def forward(self, probs, target):
                pt = probs.gather(1, target[:, None]).squeeze(1)
                return (-(1 - pt) ** self.gamma * torch.log(pt)).mean()  # expect: log-of-probability-without-eps

        def binary_focal(pred, y, alpha=0.25, gamma=2.0):
            p_t = y * pred + (1 - y) * (1 - pred)
            return -(alpha * (1.0 - p_t) ** gamma * p_t.log()).mean()  # expect: log-of-probability-without-eps

        def weighted_bce(pred, target, w):
            return -(w * target * torch.log(pred) + (1 - target) * torch.log(1 - pred)).mean()  # expect: log-of-probability-without-eps

        def dice_focal(out, tgt):
            log_p = out["log_probs"]
            p = log_p.exp()
            return ((1 - p) ** 2 * -torch.log(p)).mean()  # expect: log-of-probability-without-eps
        """
    check(src, RULE)
    (f,) = [m for m in findings(src, "log-of-probability-without-eps") if m.location.line == 11]
    assert "1 - pt" in f.observation and "clamp_min" in f.fix


def test_clamped_shifted_logits_based_and_random_values_stay_silent():
    src = """
        import torch
        import torch.nn.functional as F

        def focal_clamped(probs, target, gamma=2.0, eps=1e-7):
            probs = probs.clamp(eps, 1 - eps)
            pt = probs.gather(1, target[:, None]).squeeze(1)
            return (-(1 - pt) ** gamma * torch.log(pt)).mean()

        def bce_eps(pred, target, eps=1e-8):
            return -(target * torch.log(pred + eps) + (1 - target) * torch.log(1 - pred + eps)).mean()

        def focal_from_logits(logits, target, gamma=2.0):
            log_pt = F.log_softmax(logits, dim=1).gather(1, target[:, None]).squeeze(1)
            pt = log_pt.exp()
            return (-(1 - pt) ** gamma * log_pt).mean()

        def logistic_noise(shape):
            u = torch.rand(shape)
            return torch.log(u) - torch.log(1 - u)

        def entropy(p):
            return -(p * torch.log(p)).sum(-1)

        @torch.no_grad()
        def eval_bce(pred, y):
            return -(y * torch.log(pred) + (1 - y) * torch.log(1 - pred)).mean().item()
        """
    check(src, RULE)


def test_softmax_made_here_is_left_to_log_of_softmax():
    src = """
        import torch

        def focal(logits, target):
            p = torch.softmax(logits, dim=1).gather(1, target[:, None]).squeeze(1)
            return (-(1 - p) ** 2 * torch.log(p)).mean()  # expect: log-of-softmax
        """
    check(src, RULE | {"log-of-softmax"})


def test_numpy_statistics_are_not_a_loss():
    src = """
        import numpy as np
        import torch

        def log_loss_report(p, y):
            return -(y * np.log(p) + (1 - y) * np.log(1 - p)).mean()
        """
    check(src, RULE)


def test_an_epsilon_held_on_the_module_counts_as_a_guard():
    src = """
        import torch
        import torch.nn as nn

        class BinaryFocal(nn.Module):
            def __init__(self, eps=1e-6, smooth_eps=1e-6):
                super().__init__()
                self.eps = eps
                self.smooth_eps = smooth_eps

            def forward(self, p, y):
                a = -((1 - p) ** 2 * y * torch.log(p + self.eps)).mean()
                q = p * (1 - self.smooth_eps)
                return a - ((1 - q) ** 2 * torch.log(q + self.smooth_eps)).mean()
        """
    check(src, RULE)


def test_a_test_oracle_spelling_out_the_formula_is_not_flagged():
    src = """
        import torch

        def bce_loss_reference_fn(m, p, i, t, reduction="mean"):
            return -(t * i.log() + (1 - t) * (1 - i).log()).mean()

        def check(kernel, x, t):
            kernel.assert_close(reference_fn=lambda i, t: -(t * torch.log(i) + (1 - t) * torch.log(1 - i)))
        """
    check(src, RULE)

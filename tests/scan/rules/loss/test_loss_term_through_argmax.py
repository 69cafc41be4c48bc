"""The ``loss-term-through-argmax`` rule (``mlsleuth/scan/rules/loss/loss_term_through_argmax.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = "loss-term-through-argmax"


def test_dice_loss_on_argmax_labels():
    check(
        """
        import torch

        def dice_loss(logits, target, eps=1.0):
            pred = logits.argmax(dim=1)  # expect: loss-term-through-argmax
            inter = ((pred == target).float()).sum()
            return 1 - (2 * inter + eps) / (pred.numel() + target.numel() + eps)
        """,
        {RULE},
    )


def test_loss_module_forward_with_helper_and_where():
    check(
        """
        import torch
        import torch.nn as nn

        class ConsistencyLoss(nn.Module):
            def __init__(self, weight=0.5):
                super().__init__()
                self.weight = weight

            def mismatch(self, a, b):
                return torch.tensor([int(x != y) for x, y in zip(a.tolist(), b.tolist())], dtype=torch.float)

            def forward(self, coarse_logits, fine_logits, parent_of):
                coarse = torch.argmax(coarse_logits, 1)  # expect: loss-term-through-argmax
                fine = torch.argmax(fine_logits, 1)
                bad = self.mismatch(coarse, parent_of[fine])
                hit = torch.where(coarse == 0, torch.zeros(1), torch.ones(1))
                return self.weight * torch.mean(bad * hit)
        """,
        {RULE},
    )


def test_term_of_backpropagated_sum_in_training_loop():
    check(
        """
        import torch
        import torch.nn.functional as F

        def train(model, loader, opt, lam=0.1):
            for x, y in loader:
                out = model(x)
                ce = F.cross_entropy(out, y)
                loss = ce + lam * (out.argmax(1) != y).float().mean()  # expect: loss-term-through-argmax
                opt.zero_grad()
                loss.backward()
                opt.step()
        """,
        {RULE},
    )


def test_soft_losses_metrics_and_masks_are_silent():
    check(
        """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        def soft_dice_loss(logits, target_onehot, eps=1.0):
            probs = logits.softmax(dim=1)
            inter = (probs * target_onehot).sum()
            return 1 - (2 * inter + eps) / (probs.sum() + target_onehot.sum() + eps)

        def masked_loss(logits, labels, pad=0):
            mask = (labels != pad).float()
            ce = F.cross_entropy(logits.transpose(1, 2), labels, reduction="none")
            return (ce * mask).sum() / mask.sum()

        @torch.no_grad()
        def violation_loss_rate(logits, parents):
            pred = logits.argmax(1)
            return (pred != parents).float().mean()

        def accuracy(logits, y):
            return (logits.argmax(1) == y).float().mean()

        def train(model, loader, opt):
            for x, y in loader:
                out = model(x)
                loss = F.cross_entropy(out, y) + 0.1 * out.pow(2).mean()
                acc = (out.argmax(1) == y).float().mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """,
        {RULE},
    )

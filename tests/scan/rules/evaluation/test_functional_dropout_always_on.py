"""The ``functional-dropout-always-on`` rule (``mlsleuth/scan/rules/evaluation/functional_dropout_always_on.py``)."""

from __future__ import annotations

from scan.helpers import check

FD = {"functional-dropout-always-on"}


def test_functional_dropout_without_training_flag():
    check(
        """
        import torch.nn as nn
        import torch.nn.functional as fn

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 8)

            def forward(self, x):
                h = fn.dropout(self.fc(x), p=0.1)  # expect: functional-dropout-always-on
                return fn.dropout2d(h, 0.2)  # expect: functional-dropout-always-on
        """,
        FD,
    )


def test_functional_dropout_with_training_or_outside_module_is_fine():
    check(
        """
        import torch
        import torch.nn.functional as F

        class Block(torch.nn.Module):
            def forward(self, x):
                x = F.dropout(x, 0.1, training=self.training)
                x = F.dropout(x, 0.1, self.training)
                return F.dropout(x, p=0.5, training=True)  # MC dropout, on purpose

        def augment(x):
            return F.dropout(x, 0.1)
        """,
        FD,
    )


def test_dropout_under_a_training_branch_or_in_a_no_grad_sampler_is_fine():
    src = """
        import torch
        import torch.nn.functional as F
        from torch import nn

        class Net(nn.Module):
            def __init__(self, rate):
                super().__init__()
                self.rate = rate
                self.fc = nn.Linear(8, 2)

            def forward(self, x):
                if self.training and self.rate > 0:
                    x = F.dropout(x, p=self.rate)
                return self.fc(x)

        class Sampler(nn.Module):
            @torch.no_grad()
            def step(self, x, noise_dropout=0.0):
                noise = torch.randn_like(x)
                if noise_dropout > 0.0:
                    noise = F.dropout(noise, p=noise_dropout)
                return x + noise

            def forward(self, x):
                return F.dropout(x, p=0.1)  # expect: functional-dropout-always-on
        """
    check(src, FD)

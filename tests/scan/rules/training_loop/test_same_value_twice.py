"""The ``same-value-twice`` rule (``mlsleuth/scan/rules/training_loop/same_value_twice.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"same-value-twice"}


def test_residual_block_doubles_its_branch_after_reusing_the_input_name():
    check(
        """
        import torch.nn as nn
        import torch.nn.functional as F

        class ResidualBlock(nn.Module):
            def __init__(self, c):
                super().__init__()
                self.conv1, self.conv2 = nn.Conv2d(c, c, 3, padding=1), nn.Conv2d(c, c, 3, padding=1)
                self.bn1, self.bn2 = nn.BatchNorm2d(c), nn.BatchNorm2d(c)

            def forward(self, x):
                x = F.relu(self.bn1(self.conv1(x)))
                x = self.bn2(self.conv2(x))
                x += x  # expect: same-value-twice
                return F.relu(x)
        """,
        RULE,
    )


def test_plain_assignment_form_in_a_function():
    check(
        """
        def gated_update(h, gate, cand):
            h = gate * cand
            h = h + h  # expect: same-value-twice
            return h
        """,
        RULE,
    )


def test_discriminator_parameters_concatenated_twice():
    check(
        """
        import torch

        def configure_optimizers(self):
            opt_g = torch.optim.AdamW(self.generator.parameters(), lr=2e-4)
            params_d = list(self.disc_mrd.parameters()) + list(self.disc_mrd.parameters())  # expect: same-value-twice
            opt_d = torch.optim.AdamW(params_d, lr=2e-4)
            return [opt_g, opt_d]
        """,
        RULE,
    )


def test_chained_and_grouped_parameters_repeated():
    check(
        """
        import itertools
        import torch

        def build(enc_a, enc_b, head, lr):
            opt = torch.optim.Adam(itertools.chain(enc_a.parameters(), enc_a.parameters(), head.parameters()), lr=lr)  # expect: same-value-twice
            opt2 = torch.optim.SGD([  # expect: same-value-twice
                {"params": enc_a.parameters(), "lr": lr},
                {"params": enc_a.parameters(), "lr": lr * 10},
            ])
            return opt, opt2
        """,
        RULE,
    )


def test_deliberate_doublings_and_distinct_modules_are_clean():
    check(
        """
        import itertools
        import torch

        def forward(self, x, ids):
            y = x + x
            tr_loss = torch.zeros(())
            tr_loss -= tr_loss
            ids = ids + ids
            both = torch.cat([x, x])
            return y, both, ids

        def scale(x):
            x += x
            return x

        def build(enc_a, enc_b, head):
            params = list(enc_a.parameters()) + list(enc_b.parameters())
            chained = itertools.chain(enc_a.parameters(), enc_b.parameters(), head.parameters())
            groups = [{"params": enc_a.parameters()}, {"params": head.parameters(), "lr": 1e-3}]
            return params, chained, groups
        """,
        RULE,
    )


def test_accumulator_rebound_by_unpacking_is_not_an_argument():
    check(
        """
        def disc_loss(scores_fake, scores_real, loss_func):
            loss = 0
            real_loss = 0
            for f, r in zip(scores_fake, scores_real):
                total, real_loss, fake = loss_func(f, r)
                loss += total
                real_loss += real_loss
            return loss, real_loss
        """,
        RULE,
    )

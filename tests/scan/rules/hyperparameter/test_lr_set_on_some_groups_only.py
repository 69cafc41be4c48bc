"""The ``lr-set-on-some-groups-only`` rule (``mlsleuth/scan/rules/hyperparameter/lr_set_on_some_groups_only.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

LG = {"lr-set-on-some-groups-only"}


def test_decay_split_with_manual_cosine_on_group_zero():
    check(
        """
        import math
        import torch

        def train(model, loader, base_lr, total):
            decay = [p for n, p in model.named_parameters() if p.ndim >= 2]
            no_decay = [p for n, p in model.named_parameters() if p.ndim < 2]
            groups = [{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}]
            optimizer = torch.optim.AdamW(groups, lr=base_lr)
            for step, (x, y) in enumerate(loader):
                lr = 0.5 * base_lr * (1 + math.cos(math.pi * step / total))
                optimizer.param_groups[0]["lr"] = lr  # expect: lr-set-on-some-groups-only
                loss = torch.nn.functional.cross_entropy(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        """,
        LG,
    )


def test_assignment_after_the_group_loop():
    check(
        """
        def adjust_learning_rate(optimizer, epoch, args):
            lr = args.lr * (0.1 ** (epoch // 30))
            for param_group in optimizer.param_groups:
                print(param_group["lr"])
            param_group["lr"] = lr  # expect: lr-set-on-some-groups-only
        """,
        LG,
    )


def test_message():
    got = findings(
        """
        import torch
        opt = torch.optim.SGD([{"params": a.parameters()}, {"params": b.parameters(), "weight_decay": 0}], lr=0.1)
        opt.param_groups[0]["lr"] = 0.01
        """,
        "lr-set-on-some-groups-only",
    )
    assert len(got) == 1 and "group(s) [1]" in got[0].message


def test_every_group_set_or_groups_with_own_lr_are_fine():
    check(
        """
        import torch

        def a(model, lr):
            opt = torch.optim.SGD([{"params": model.backbone.parameters()}, {"params": model.head.parameters(), "lr": 0.1}], lr=lr)
            opt.param_groups[0]["lr"] = lr * 0.5
            return opt

        def b(model, lr):
            opt2 = torch.optim.SGD([{"params": model.a.parameters()}, {"params": model.b.parameters()}], lr=lr)
            opt2.param_groups[0]["lr"] = lr
            opt2.param_groups[1]["lr"] = lr * 10
            return opt2

        def c(model, lr):
            opt3 = torch.optim.SGD(model.parameters(), lr=lr)
            opt3.param_groups[0]["lr"] = lr
            for g in opt3.param_groups:
                pass
            g["lr"] = lr
        """,
        LG,
    )


def test_a_loop_over_groups_anywhere_is_fine():
    check(
        """
        import torch

        opt = torch.optim.AdamW([{"params": w, "weight_decay": 0.1}, {"params": b, "weight_decay": 0.0}], lr=1e-3)
        opt.param_groups[0]["lr"] = 1e-4

        def set_lr(optimizer, lr):
            for g in optimizer.param_groups:
                g["lr"] = lr
        """,
        LG,
    )

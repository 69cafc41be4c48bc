"""The ``group-lrs-overwritten-by-one-value`` rule (``mlsleuth/scan/rules/hyperparameter/group_lrs_overwritten_by_one_value.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"group-lrs-overwritten-by-one-value"}

SCHEDULER = """
import math
from torch.optim.lr_scheduler import _LRScheduler


class CosineWarmup(_LRScheduler):
    def _lr(self):
        return self.min_lr + (self.max_lr - self.min_lr) * (1 + math.cos(math.pi * self.t)) / 2

    def step(self, epoch=None):
        lr = self._lr()
        for param_group in self.optimizer.param_groups:
            param_group["lr"] = lr  # expect: group-lrs-overwritten-by-one-value
"""

TRAIN = """
import torch
from schedulers import CosineWarmup

def main(seg, cfg):
    optimizer = torch.optim.AdamW([
        {"params": seg.encoder.parameters(), "lr": cfg["encoder_lr"]},
        {"params": seg.decoder.parameters(), "lr": cfg["decoder_lr"]},
    ])
    return CosineWarmup(optimizer)
"""


def test_scheduler_class_in_another_file_than_the_groups(tmp_path):
    check_project(tmp_path, {"schedulers.py": SCHEDULER, "train.py": TRAIN}, RULE)


def test_adjust_learning_rate_helper_with_dict_groups():
    check(
        """
        import torch

        def adjust_learning_rate(optimizer, epoch, args):
            lr = args.lr * (0.1 ** (epoch // 30))
            for pg in optimizer.param_groups:
                pg["lr"] = lr  # expect: group-lrs-overwritten-by-one-value

        def build(model, args):
            return torch.optim.SGD([dict(params=model.backbone.parameters(), lr=args.lr * 0.1),
                                    dict(params=model.head.parameters())], lr=args.lr)
        """,
        RULE,
    )


def test_per_group_scaling_and_single_rate_projects_are_fine(tmp_path):
    check(
        """
        import torch

        def warm(optimizer, base_lrs, factor):
            for g, base in zip(optimizer.param_groups, base_lrs):
                g["lr"] = base * factor
            for g in optimizer.param_groups:
                g["lr"] *= 0.1
                g["lr"] = g["initial_lr"] * factor

        def build(model):
            return torch.optim.AdamW([{"params": model.enc.parameters(), "lr": 1e-5},
                                      {"params": model.dec.parameters(), "lr": 1e-3}])
        """,
        RULE,
    )
    single = TRAIN.replace("""[
        {"params": seg.encoder.parameters(), "lr": cfg["encoder_lr"]},
        {"params": seg.decoder.parameters(), "lr": cfg["decoder_lr"]},
    ]""", 'seg.parameters(), lr=cfg["lr"]')
    check_project(tmp_path, {"schedulers.py": SCHEDULER.replace("  # expect: group-lrs-overwritten-by-one-value", ""),
                             "train.py": single}, RULE)

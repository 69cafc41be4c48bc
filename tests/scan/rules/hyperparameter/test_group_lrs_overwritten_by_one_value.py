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


def test_script_with_its_own_single_group_optimizer_beside_other_examples(tmp_path):
    # a folder of independent example scripts: one fine-tunes with per-group rates, another decays the one
    # rate of its own `Adam(model.parameters())` by hand; that second script erases nothing
    step_decay = """
        import torch

        model = torch.nn.Linear(8, 2)
        optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

        def train(epoch):
            if epoch == 16:
                for group in optimizer.param_groups:
                    group["lr"] = 0.001
        """
    finetune = """
        import torch

        def build(net):
            return torch.optim.SGD([{"params": net.body.parameters(), "lr": 1e-4},
                                    {"params": net.head.parameters(), "lr": 1e-2}], momentum=0.9)
        """
    check_project(tmp_path, {"graph_decay.py": step_decay, "finetune_groups.py": finetune}, RULE)
    # the same hand decay on this file's own per-group optimizer is still reported
    grouped = step_decay.replace("torch.optim.Adam(model.parameters(), lr=0.01)",
                                 'torch.optim.Adam([{"params": model.weight, "lr": 1e-3}, {"params": model.bias, "lr": 1e-2}])')
    grouped = grouped.replace('group["lr"] = 0.001', 'group["lr"] = 0.001  # expect: group-lrs-overwritten-by-one-value')
    check_project(tmp_path / "b", {"graph_decay.py": grouped, "finetune_groups.py": finetune}, RULE)


def test_rate_wrapper_around_a_single_group_optimizer_is_fine(tmp_path):
    # a Noam-style wrapper sets the one rate of the optimizer it wraps; the script builds that optimizer from
    # model.parameters(), while another script of the folder uses per-group rates
    wrapper = """
        import torch

        class Noam:
            def __init__(self, d_model, warmup, optimizer):
                self.optimizer = optimizer
                self.d_model, self.warmup, self._step = d_model, warmup, 0

            def step(self):
                self._step += 1
                rate = self.d_model ** -0.5 * min(self._step ** -0.5, self._step * self.warmup ** -1.5)
                for p in self.optimizer.param_groups:
                    p["lr"] = rate
                self.optimizer.step()

        def main(model):
            opt = Noam(512, 4000, torch.optim.Adam(model.parameters(), lr=0, betas=(0.9, 0.98)))
            return opt
        """
    finetune = """
        import torch

        def build(net):
            return torch.optim.SGD([{"params": net.body.parameters(), "lr": 1e-4},
                                    {"params": net.head.parameters(), "lr": 1e-2}], momentum=0.9)
        """
    check_project(tmp_path, {"noam.py": wrapper, "finetune_groups.py": finetune}, RULE)

"""The ``positional-argument-wrong-kind`` rule (``mlsleuth/scan/rules/architecture/positional_argument_wrong_kind.py``)."""

from __future__ import annotations

import pytest
from scan.helpers import check

from mlsleuth.scan.analysis.torch_signatures import SIGNATURES, generate, positional

RULE = {"positional-argument-wrong-kind"}


def test_flags_and_numbers_in_each_others_slots():
    src = """
        import torch.nn as nn
        from torch.nn import LeakyReLU, Dropout

        def block(c_in, c_out):
            return nn.Sequential(
                nn.Conv2d(c_in, c_out, 3, 1, 1),
                nn.BatchNorm2d(c_out, 0.8),  # expect: positional-argument-wrong-kind
                LeakyReLU(True),  # expect: positional-argument-wrong-kind
                Dropout(True),  # expect: positional-argument-wrong-kind
            )

        class Head(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.act = nn.ReLU(0.2)  # expect: positional-argument-wrong-kind
                self.norm = nn.LayerNorm(d, 0.1)  # expect: positional-argument-wrong-kind
                self.fc = nn.Linear(d, 1)
    """
    check(src, RULE)


def test_variables_named_after_another_parameter():
    src = """
        import torch
        import torch.nn.functional as F
        from torch import nn

        class Encoder(nn.Module):
            def __init__(self, cfg, channels, padding, bn_momentum):
                super().__init__()
                self.conv = nn.Conv2d(channels, channels, 3, 1, padding)
                self.bn = nn.BatchNorm1d(channels, bn_momentum)  # expect: positional-argument-wrong-kind
                self.drop_p = cfg.p

            def forward(self, x):
                x = F.dropout(x, self.training)  # expect: positional-argument-wrong-kind
                return F.leaky_relu(self.bn(self.conv(x).mean((2, 3))), inplace)  # expect: positional-argument-wrong-kind

        inplace = False
    """
    check(src, RULE)


def test_correct_positional_and_keyword_calls_are_quiet():
    src = """
        import torch.nn as nn
        import torch.nn.functional as F

        class Block(nn.Module):
            def __init__(self, in_channels, out_channels, stride, padding, eps, momentum, dropout, negative_slope):
                super().__init__()
                self.conv1 = nn.Conv2d(in_channels, out_channels, 3, stride, padding)
                self.conv2 = nn.Conv2d(out_channels, out_channels, 3, 1, 1)  # a block's second conv reuses the width
                self.bn = nn.BatchNorm2d(out_channels, eps, momentum)
                self.bn2 = nn.BatchNorm2d(out_channels, 1e-3, 0.01)
                self.act = nn.LeakyReLU(negative_slope, True)
                self.act2 = nn.LeakyReLU(0.2, inplace=True)
                self.relu = nn.ReLU(True)  # inplace=True, as meant
                self.drop = nn.Dropout(dropout)
                self.fc = nn.Linear(out_channels, out_channels, False)
                self.fc0 = nn.Linear(10, 5, 0)  # 0/1 for a flag: C-style, and what it says
                self.norm = nn.LayerNorm(out_channels, 1e-6)
                self.down = nn.MaxPool2d(stride, stride=stride)  # a window as wide as its stride (timm's DLA)
                self.pool = nn.AvgPool2d(stride)
                self.conv3 = nn.Conv2d(in_channels, out_channels, 3, padding)  # geometry: not told apart by name
                self.gn = nn.GroupNorm(32, out_channels, 1e-5)

            def forward(self, x, value, mask):
                x = F.dropout(x, 0.5, self.training)
                x = F.dropout(x, p=0.1, training=self.training)
                value = F.pad(value, (0, 1))  # a tensor called value in the tensor slot
                return F.leaky_relu(self.act(self.bn(self.conv1(x))), 0.2, True) + F.softmax(mask, -1).sum()
    """
    check(src, RULE)


def test_not_torch_or_unlisted_callees_are_quiet():
    src = """
        import keras
        from mylib import nn

        bn = keras.layers.BatchNormalization(-1, 0.99, 0.001)
        act = nn.LeakyReLU(True)
        drop = nn.Dropout(True)
    """
    check(src, RULE)


def test_the_table_matches_the_installed_torch():
    pytest.importorskip("torch")
    fresh = generate()
    changed = {k for k in SIGNATURES.keys() & fresh.keys() if SIGNATURES[k] != fresh[k]}
    assert not changed, f"torch signatures changed for {sorted(changed)[:5]}: regenerate with python -m mlsleuth.scan.analysis.torch_signatures"
    assert len(SIGNATURES.keys() & fresh.keys()) >= 0.9 * len(SIGNATURES)


def test_positional_parses_the_table():
    slots = positional("torch.nn.BatchNorm2d")
    assert [p.name for p in slots[:3]] == ["num_features", "eps", "momentum"]
    assert slots[1].kind == "f" and slots[1].default == 1e-5 and slots[3].default is True
    assert positional("torch.nn.NoSuchLayer") is None

"""Which constructions change behaviour with train()/eval() (``mlsleuth/scan/analysis/module_modes.py``)."""

from __future__ import annotations

import ast
import textwrap

import pytest
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.module_modes import construction_mode_dependent

HEADER = """
import torch
import torch.nn as nn
import torchvision

class Plain(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)

class WithBN(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8))

class Child(Plain):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.1)

class Holder(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone
"""


@pytest.mark.parametrize(
    ("expr", "want"),
    [
        ("nn.Linear(3, 4)", False),
        ("nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))", False),
        ("nn.Sequential(nn.Linear(3, 4), nn.Dropout(0.2))", True),
        ("nn.LSTM(4, 8, num_layers=2)", False),
        ("nn.LSTM(4, 8, num_layers=2, dropout=0.3)", True),
        ("nn.TransformerEncoderLayer(16, 2)", True),
        ("Plain()", False),
        ("WithBN()", True),
        ("Child()", True),
        ("Holder(Plain())", None),
        ("torchvision.models.resnet18()", None),
        ("nn.Sequential(*layers)", None),
    ],
)
def test_construction_mode_dependence(expr, want):
    source = textwrap.dedent(HEADER) + f"\nmodel = {expr}\n"
    ctx = FileContext.from_source(source)
    call = ctx.tree.body[-1].value
    assert isinstance(call, ast.Call)
    assert construction_mode_dependent(ctx, call) is want

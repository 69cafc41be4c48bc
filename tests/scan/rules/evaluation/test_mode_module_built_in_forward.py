"""The ``mode-module-built-in-forward`` rule (``mlsleuth/scan/rules/evaluation/mode_module_built_in_forward.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"mode-module-built-in-forward"}


def test_dropout_and_batchnorm_built_during_forward():
    src = """
        import torch.nn as nn
        from torch import nn as tnn

        class Head(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.fc = nn.Linear(d, 2)

            def forward(self, x):
                x = nn.Dropout(p=0.5)(x)  # expect: mode-module-built-in-forward
                norm = tnn.BatchNorm1d(x.shape[1])  # expect: mode-module-built-in-forward
                return self.fc(norm(x))
        """
    check(src, RULE)


def test_layers_registered_in_init_or_built_outside_a_module_are_fine():
    src = """
        import torch.nn as nn
        import torch.nn.functional as F

        class Head(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.drop = nn.Dropout(0.5)
                self.fc = nn.Linear(d, 2)

            def forward(self, x):
                x = F.dropout(x, 0.1, training=self.training)
                return self.fc(self.drop(x))

        class Builder:
            def forward(self, d):
                return nn.Sequential(nn.Linear(d, d), nn.Dropout(0.1))

        def make_block(d):
            return nn.Sequential(nn.Linear(d, d), nn.BatchNorm1d(d))
        """
    check(src, RULE)

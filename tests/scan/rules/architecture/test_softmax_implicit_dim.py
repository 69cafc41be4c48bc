"""The ``softmax-implicit-dim`` rule (``mlsleuth/scan/rules/architecture/softmax_implicit_dim.py``)."""

from __future__ import annotations

from scan.helpers import check


def test_softmax_implicit_dim():
    src = """
    import torch.nn as nn
    import torch.nn.functional as F

    head = nn.Sequential(nn.Linear(4, 3), nn.Softmax())  # expect: softmax-implicit-dim

    def f(x):
        return F.log_softmax(x)  # expect: softmax-implicit-dim
    """
    check(src, {'softmax-implicit-dim'})


def test_softmax_with_explicit_dim_is_fine():
    src = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    head = nn.Sequential(nn.Linear(4, 3), nn.Softmax(dim=-1), nn.LogSoftmax(1))

    def f(x, axis):
        return F.softmax(x, -1), F.log_softmax(x, dim=axis), torch.softmax(x, 1), x.softmax(dim=0)
    """
    check(src, {'softmax-implicit-dim'})

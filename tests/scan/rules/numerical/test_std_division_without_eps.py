"""The ``std-division-without-eps`` rule (``mlsleuth/scan/rules/numerical/std_division_without_eps.py``)."""

from __future__ import annotations

from scan.helpers import check


def test_std_division_without_eps():
    src = """
    import numpy as np
    import torch

    def standardise(x, X, xp):
        a = (x - x.mean(0)) / x.std(0)  # expect: std-division-without-eps
        s = torch.std(x, dim=1, keepdim=True)
        b = x / s  # expect: std-division-without-eps
        c = (X - X.mean(axis=0)) / np.std(X, axis=0)  # expect: std-division-without-eps
        d = x / xp.std(x, correction=0)
        return a, b, c, d
    """
    check(src, {'std-division-without-eps'})


def test_guarded_or_whole_tensor_std_division_is_fine():
    src = """
    import numpy as np
    import torch

    def standardise(x, adv, X, eps=1e-8):
        a = (x - x.mean(0)) / (x.std(0) + eps)
        b = x / x.std(dim=0).clamp(min=1e-6)
        s = np.std(X, axis=0)
        s[s == 0] = 1.0
        c = X / s + X / np.maximum(s, eps)
        d = (adv - adv.mean()) / (adv.std() + 1e-8)
        e = x / x.std()
        return a, b, c, d, e
    """
    check(src, {'std-division-without-eps'})


def test_std_division_outside_ml_code_is_left_alone():
    src = """
    import numpy as np

    def t_statistic(x, y):
        s = np.std(x, ddof=1, axis=0)
        return (y - x.mean(axis=0)) / s
    """
    check(src, {'std-division-without-eps'})

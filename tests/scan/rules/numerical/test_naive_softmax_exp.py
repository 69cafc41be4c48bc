"""The ``naive-softmax-exp`` rule (``mlsleuth/scan/rules/numerical/naive_softmax_exp.py``)."""

from __future__ import annotations

from scan.helpers import check


def test_naive_softmax_exp():
    src = """
    import numpy as np
    import torch

    def my_softmax(x):
        return torch.exp(x) / torch.exp(x).sum(dim=1, keepdim=True)  # expect: naive-softmax-exp

    def np_softmax(z):
        e = np.exp(z)
        return e / np.sum(e, axis=-1, keepdims=True)  # expect: naive-softmax-exp
    """
    check(src, {'naive-softmax-exp'})


def test_stable_softmax_and_other_exp_ratios_are_fine():
    src = """
    import numpy as np
    import torch

    def stable(x):
        e = torch.exp(x - x.max(dim=1, keepdim=True).values)
        return e / e.sum(dim=1, keepdim=True)

    def shifted(z):
        z = z - np.max(z)
        return np.exp(z) / np.exp(z).sum()

    def ratio(a, b):
        return torch.exp(a) / torch.exp(b).sum()
    """
    check(src, {'naive-softmax-exp'})


def test_gaussian_kernel_normalisation_is_not_a_softmax():
    src = """
    import numpy as np

    def kernel(x, sigma2):
        phi = np.exp(-0.5 / sigma2 * x ** 2)
        return phi / phi.sum()
    """
    check(src, {'naive-softmax-exp'})

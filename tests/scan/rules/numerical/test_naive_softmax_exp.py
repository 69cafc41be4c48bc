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
        e = np.exp(z)  # expect: naive-softmax-exp
        return e / np.sum(e, axis=-1, keepdims=True)
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


def test_masked_softmax_written_by_hand_is_followed_through_the_mask():
    src = """
    import torch

    def softmax(x, dim=-1, mask=None):
        e = torch.exp(x)  # expect: naive-softmax-exp
        if mask is not None:
            e = e * mask
        return e / e.sum(dim=dim, keepdim=True)

    def masked_attention(scores, pad):
        w = scores.exp().masked_fill(pad, 0.0)  # expect: naive-softmax-exp
        return w / w.sum(-1, keepdim=True)
    """
    check(src, {'naive-softmax-exp'})


def test_masked_softmax_shifted_by_the_maximum_or_of_a_negated_distance_is_fine():
    src = """
    import torch

    def softmax(x, dim=-1, mask=None):
        e = torch.exp(x - x.amax(dim=dim, keepdim=True))
        if mask is not None:
            e = e * mask
        return e / e.sum(dim=dim, keepdim=True)

    def kernel_weights(dist, valid):
        w = torch.exp(-dist) * valid
        return w / w.sum(-1, keepdim=True)

    def mixture(logits, counts):
        return torch.exp(logits) * counts / counts.sum()
    """
    check(src, {'naive-softmax-exp'})

"""The ``cudnn-benchmark-with-deterministic`` rule (``mlsleuth/scan/rules/reproducibility/cudnn_benchmark_with_deterministic.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = "cudnn-benchmark-with-deterministic"


def test_benchmark_on_next_to_deterministic_flags():
    src = """
    import random
    import numpy as np
    import torch
    from torch.backends import cudnn

    def fix_seeds(seed):
        random.seed(seed)
        np.random.seed(seed)
        torch.manual_seed(seed)
        cudnn.deterministic = True
        cudnn.benchmark = True  # expect: cudnn-benchmark-with-deterministic

    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = True  # expect: cudnn-benchmark-with-deterministic
    """
    check(src, {RULE})


def test_benchmark_alone_or_off_with_deterministic_is_fine():
    src = """
    import torch

    def throughput_setup():
        torch.backends.cudnn.benchmark = True

    def reproducible_setup(seed):
        torch.manual_seed(seed)
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False

    def fast_setup(args):
        torch.backends.cudnn.deterministic = False
        torch.backends.cudnn.benchmark = True
        torch.use_deterministic_algorithms(False)
    """
    check(src, {RULE})

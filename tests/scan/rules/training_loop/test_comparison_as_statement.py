"""The ``comparison-as-statement`` rule (``mlsleuth/scan/rules/training_loop/comparison_as_statement.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"comparison-as-statement"}


def test_comparisons_meant_as_assignments_are_found():
    src = """
        import torch

        def freeze(model, n):
            for i, p in enumerate(model.parameters()):
                if i < n:
                    p.requires_grad == False  # expect: comparison-as-statement

        def remap(mask):
            mask[mask == 255] == 0  # expect: comparison-as-statement
            return mask
        """
    check(src, RULE)


def test_assignments_kept_comparisons_and_error_checks_stay_silent():
    src = """
        import pytest
        import torch

        def freeze(model):
            for p in model.parameters():
                p.requires_grad = False
            same = model.training == False
            print(model.training == False)
            return same

        def test_compare_raises():
            a = torch.zeros(3)
            with pytest.raises(RuntimeError):
                a == torch.zeros(4)
        """
    check(src, RULE)
    plain = """
        import numpy as np

        a = np.arange(3)
        a == a
        """
    check(plain, RULE)

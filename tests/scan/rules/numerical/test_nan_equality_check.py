"""The ``nan-equality-check`` rule (``mlsleuth/scan/rules/numerical/nan_equality_check.py``)."""

from __future__ import annotations

from scan.helpers import check


def test_nan_equality_variants():
    src = """
    import math
    import numpy as np
    import torch

    def guard(loss, arr, t):
        if loss == float('nan'):  # expect: nan-equality-check
            print("nan")
        if arr != np.nan:  # expect: nan-equality-check
            pass
        if t == torch.nan:  # expect: nan-equality-check
            pass
        if t is float("nan"):  # expect: nan-equality-check
            pass
    """
    check(src, {'nan-equality-check'})


def test_nan_checks_done_right_and_nan_strings_are_not_flagged():
    src = """
    import math
    import numpy as np
    import torch

    def guard(loss, arr, label):
        if math.isnan(loss) or np.isnan(arr).any() or torch.isnan(loss):
            raise FloatingPointError("nan")
        if label == "nan" or arr.item() is np.nan:
            return None
        fill = float("nan")
        return fill
    """
    check(src, {'nan-equality-check'})


def test_nan_comparison_semantics_checked_by_assertion_helpers_are_fine():
    src = """
    import numpy as np

    class T:
        def test_nan(self, F, dat):
            self.assertFalse(F(5, 2) == float("nan"))
            np.testing.assert_array_equal(dat == np.nan, np.zeros_like(dat, dtype=bool))

    def guard(loss):
        assert loss != float("nan"), "NaN loss"  # expect: nan-equality-check
    """
    check(src, {'nan-equality-check'})

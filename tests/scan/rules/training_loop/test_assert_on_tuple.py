"""The ``assert-on-tuple`` rule (``mlsleuth/scan/rules/training_loop/assert_on_tuple.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"assert-on-tuple"}


def test_asserts_on_a_tuple_are_found():
    src = """
        def check_batch(x, y):
            assert (x.shape[0] == y.shape[0], "batch mismatch")  # expect: assert-on-tuple
            assert (y.min() >= 0, y.max() < 10)  # expect: assert-on-tuple
        """
    check(src, RULE)


def test_ordinary_asserts_stay_silent():
    src = """
        def check_batch(x, y):
            assert x.shape[0] == y.shape[0], "batch mismatch"
            assert (x.shape[0] == y.shape[0]), "parenthesised condition"
            assert (x.shape, y.shape) == ((4, 3), (4,))
            assert ()  == ()
        """
    check(src, RULE)

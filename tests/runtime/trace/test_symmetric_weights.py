"""`symmetric-weights` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "symmetric-weights"


def test_symmetric_weights_is_found():
    found = findings_of("zoo_zero_init_high_lr_bug", CHECK)
    assert found, "expected symmetric-weights in the recorded zoo_zero_init_high_lr_bug run"
    assert found[0].message and found[0].observation and found[0].next_test
    assert found[0].location.module == 'fc1'


def test_symmetric_weights_is_not_found_without_the_bug():
    assert not findings_of("zoo_zero_init_high_lr_fixed", CHECK)


def test_rows_blown_up_to_inf_are_not_called_symmetric():
    """Weights an exploding update turned into inf/NaN rows match trivially; non-finite-loss tells that story."""
    from .measurements import findings_for

    row = {"name": "0.weight", "module": "0", "rows": 64, "all_zero": False}
    assert findings_for(CHECK, {"symmetric": [{**row, "max_abs": 0.5}]})
    assert not findings_for(CHECK, {"symmetric": [{**row, "max_abs": float("inf")}]})

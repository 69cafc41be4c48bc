"""`param-not-in-optimizer` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "param-not-in-optimizer"


def test_param_not_in_optimizer_is_found():
    found = findings_of("zoo_param_not_in_optimizer_bug", CHECK)
    assert found, "expected param-not-in-optimizer in the recorded zoo_param_not_in_optimizer_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_param_not_in_optimizer_is_not_found_without_the_bug():
    assert not findings_of("zoo_param_not_in_optimizer_fixed", CHECK)


def test_a_module_run_under_no_grad_and_left_out_of_the_optimizer_is_info():
    """An intentionally frozen tower: requires_grad left on, but run under torch.no_grad() and not in the optimizer
    (a corpus look-alike that used to draw an error). A module that does receive gradients stays an error."""
    from .measurements import findings_for

    universe = [["tower.w", "tower"], ["head.w", "head"]]
    frozen = {"not_in_optimizer": [{"name": "tower.w", "module": "tower", "numel": 16, "has_grad": False}], "model_params": universe}
    assert [f.severity for f in findings_for(CHECK, frozen)] == ["info"]
    used = {"not_in_optimizer": [{"name": "tower.w", "module": "tower", "numel": 16, "has_grad": True}], "model_params": universe}
    assert [f.severity for f in findings_for(CHECK, used)] == ["error"]

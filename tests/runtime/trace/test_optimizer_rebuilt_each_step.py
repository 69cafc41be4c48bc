"""`optimizer-rebuilt-each-step` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of
from .measurements import findings_for, param

CHECK = "optimizer-rebuilt-each-step"


def test_optimizer_rebuilt_each_step_is_found():
    found = findings_of("zoo_optimizer_rebuilt_bug", CHECK)
    assert found, "expected optimizer-rebuilt-each-step in the recorded zoo_optimizer_rebuilt_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_optimizer_rebuilt_each_step_is_not_found_without_the_bug():
    assert not findings_of("zoo_optimizer_rebuilt_fixed", CHECK)


def _opt(rebuilds, steps=20):
    return {"params": [param("fc.weight", "fc", steps=steps)],
            "optimizer": {"type": "Adam", "stateful": True, "replacement_count": len(rebuilds),
                          "replacements": [r["step"] for r in rebuilds], "rebuilds": rebuilds}}


def test_a_rebuild_every_few_steps_over_the_same_parameters_is_found():
    """A mapper whose optimize() builds a new Adam per call and trains 5 steps with it (a corpus case)."""
    (hit,) = findings_for(CHECK, _opt([{"step": s, "same_parameters": True} for s in (5, 10, 15)]))
    assert "every 5 steps" in hit.message and hit.location.step == 5


def test_training_stages_are_not_a_periodic_rebuild():
    # two stages at irregular points, and a progressive unfreezing that changes the parameter set each time
    assert not findings_for(CHECK, _opt([{"step": 6, "same_parameters": True}, {"step": 15, "same_parameters": True}]))
    assert not findings_for(CHECK, _opt([{"step": s, "same_parameters": False} for s in (5, 10, 15)]))
    assert not findings_for(CHECK, _opt([{"step": s, "same_parameters": True} for s in (3, 8, 16)]))

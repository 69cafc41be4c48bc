"""`frozen-parameters` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "frozen-parameters"


def test_frozen_parameters_is_found():
    found = findings_of("zoo_frozen_layer_bug", CHECK)
    assert found, "expected frozen-parameters in the recorded zoo_frozen_layer_bug run"
    assert found[0].message and found[0].observation and found[0].next_test
    assert found[0].location.module == 'fc1'


def test_frozen_parameters_is_not_found_without_the_bug():
    assert not findings_of("zoo_frozen_layer_fixed", CHECK)

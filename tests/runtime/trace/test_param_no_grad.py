"""`param-no-grad` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

import pytest

from ..recorded import findings_of

CHECK = "param-no-grad"


def test_param_no_grad_is_found():
    found = findings_of("zoo_detached_encoder_bug", CHECK)
    assert found, "expected param-no-grad in the recorded zoo_detached_encoder_bug run"
    assert found[0].message and found[0].observation and found[0].next_test
    assert found[0].location.module == 'encoder'


def test_param_no_grad_is_not_found_without_the_bug():
    assert not findings_of("zoo_detached_encoder_fixed", CHECK)


@pytest.mark.slow
def test_a_head_idle_in_the_window_is_info_and_a_detached_head_a_warning():
    """A module that runs no forward in the traced window (a later stage's head) is reported as info; the same module
    running every step with its output detached is the warning."""
    from .measurements import traced

    staged = [f for f in traced("staged_heads.py", "staged") if f.rule == CHECK]
    assert [(f.location.module, f.severity) for f in staged] == [("head_b", "info")]
    cut = [f for f in traced("staged_heads.py", "cut") if f.rule == CHECK]
    assert [(f.location.module, f.severity) for f in cut] == [("head_b", "warning")]

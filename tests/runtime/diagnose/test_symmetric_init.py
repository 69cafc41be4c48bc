"""`symmetric-init` (diagnose): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

from ..recorded import findings_of

CHECK = "symmetric-init"


def test_symmetric_init_is_found():
    found = findings_of("models_zero_init", CHECK)
    assert found, "expected symmetric-init in the recorded models_zero_init run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_symmetric_init_is_not_found_without_the_bug():
    assert not findings_of("models_healthy_zero_final_layer", CHECK)

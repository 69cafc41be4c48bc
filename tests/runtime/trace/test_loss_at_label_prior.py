"""`loss-at-label-prior` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

import pytest

from ..recorded import findings_of

CHECK = "loss-at-label-prior"


def test_loss_at_label_prior_is_found():
    found = findings_of("zoo_shuffled_labels_bug", CHECK)
    assert found, "expected loss-at-label-prior in the recorded zoo_shuffled_labels_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_loss_at_label_prior_is_not_found_without_the_bug():
    assert not findings_of("zoo_shuffled_labels_fixed", CHECK)


def _run(values, counts=(50, 50)):
    return {"losses": values, "loss_calls": {"cross_entropy": {"calls": len(values), "values": values, "reduction": "mean", "classes": len(counts)}},
            "class_counts": {str(i): c for i, c in enumerate(counts)}}


def test_a_loss_settled_at_the_prior_is_a_warning():
    import math

    from .measurements import findings_for

    prior = math.log(2)
    flat = [prior + 0.004 * ((-1) ** i) for i in range(30)]
    (hit,) = findings_for(CHECK, _run(flat))
    assert hit.severity == "warning"
    # dropped to the prior in the first steps, then flat (misaligned targets)
    early_drop = [0.74, 0.71, 0.70] + [prior + 0.003 * ((-1) ** i) for i in range(27)]
    (hit,) = findings_for(CHECK, _run(early_drop))
    assert hit.severity == "warning"


def test_a_loss_still_falling_towards_the_prior_is_info_only():
    # a language model at a small learning rate (a corpus fixed twin): it starts above the label entropy and
    # approaches it steadily; at 60 steps it sits at the prior but keeps falling
    from .measurements import findings_for

    counts = [30, 20, 10, 10, 5, 5, 5, 5, 3, 3, 2, 2]
    total = sum(counts)
    import math

    prior = -sum(c / total * math.log(c / total) for c in counts)
    values = [prior + 0.3 - 0.3 * i / 59 + 0.03 * ((-1) ** i) for i in range(60)]
    (hit,) = findings_for(CHECK, _run(values, counts))
    assert hit.severity == "info" and "still falling" in hit.message


@pytest.mark.slow
def test_a_slow_start_is_watched_longer_not_flagged():
    """A one-cycle warmup from a tiny LR keeps the loss at ln(3) for the requested 20 steps; the trace watches
    more steps before deciding, sees the loss leave the prior, and raises nothing."""
    from mlsleuth.runtime.trace import trace

    from .test_runner import SCRIPTS

    report = trace(SCRIPTS / "warmup_slow_start.py", steps=20, cwd=SCRIPTS, timeout_s=180)
    assert report.errors == [], [e.message for e in report.errors]
    assert "steps_extended" in report.summary.stats
    assert not [f for f in report.findings if f.rule == CHECK and f.severity != "info"]

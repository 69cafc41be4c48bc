"""`grad-accumulation-unscaled` (trace): micro-batch losses summed, not averaged."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "grad-accumulation-unscaled"


def _acc(root, post, k=4, steps=5):
    return {"accumulation": [{"step": s, "backward": k, "root_scale": root, "post_scale": post} for s in range(steps)]}


def test_found_on_measurements():
    (hit,) = findings_for(CHECK, _acc(1.0, 1.0))
    assert "summed" in hit.message and hit.category == "training-loop"


def test_not_found_when_losses_or_gradients_are_divided():
    assert not findings_for(CHECK, _acc(0.25, 1.0))  # loss / k before backward
    assert not findings_for(CHECK, _acc(1.0, 0.25))  # gradients divided by k before step()
    assert not findings_for(CHECK, _acc(1.0, 1.0, steps=2))  # too few steps


@pytest.mark.slow
def test_summed_accumulation_found_averaged_not():
    assert [f for f in traced("accumulate.py", "sum") if f.rule == CHECK]
    assert not [f for f in traced("accumulate.py", "mean") if f.rule == CHECK]

"""`restored-state-is-live-weights` (trace): a "best" state kept by reference and restored at the end."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "restored-state-is-live-weights"


def _data(aliased: int, given: int = 4) -> dict:
    return {"checkpoints": {"loads": [{"module": "Net", "strict": True, "model_keys": 4, "given_keys": given, "missing": 0,
                                       "unexpected": 0, "aliased": aliased, "phase": "after", "path": None, "line": None}],
                            "resumes": []}}


def test_found_when_the_loaded_tensors_are_the_models_own():
    (hit,) = findings_for(CHECK, _data(4))
    assert hit.severity == "error" and "live tensors" in hit.message and "after the traced steps" in hit.observation


def test_not_found_for_a_copy_or_a_file():
    assert not findings_for(CHECK, _data(0))  # deepcopy / torch.load: other storage
    assert not findings_for(CHECK, _data(1))  # one shared buffer out of four is not a restore of the live model
    assert not findings_for(CHECK, {})


@pytest.mark.slow
@pytest.mark.parametrize("variant, bug", [("best-reference", True), ("best-deepcopy", False), ("best-buffer", False)])
def test_best_state_restored_at_the_end_of_a_real_script(variant: str, bug: bool):
    """The restore happens after the traced steps: trace sees it because the script runs on after them."""
    assert bool([f for f in traced("checkpoint_events.py", variant) if f.rule == CHECK]) == bug

"""`kl-div-input-not-log-probs` (trace): KLDivLoss fed probabilities instead of log-probabilities."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "kl-div-input-not-log-probs"


def test_found_on_measurements():
    kl = {"calls": 5, "non_negative_calls": 5, "rows_sum_to_one": True, "input_shape": [8, 5], "input_min": 0.01, "input_max": 0.7,
          "step": 0, "where": None, "path": "/x/distill.py", "line": 24}
    (hit,) = findings_for(CHECK, {"kl_div": kl, "script_dir": "/x"})
    assert hit.location.line == 24 and hit.location.path.endswith("distill.py") and "softmax" in hit.observation


def test_not_found_for_log_probabilities():
    kl = {"calls": 5, "non_negative_calls": 0, "input_shape": [8, 5], "input_min": -4.0, "input_max": -0.1, "step": 0}
    assert not findings_for(CHECK, {"kl_div": kl})
    kl = {**kl, "non_negative_calls": 2}  # some calls fed probabilities, others not: not every call, not reported
    assert not findings_for(CHECK, {"kl_div": kl})


@pytest.mark.slow
def test_distillation_with_probabilities_found_log_probabilities_not():
    assert [f for f in traced("distill_kl.py", "probs") if f.rule == CHECK]
    assert not [f for f in traced("distill_kl.py", "logprobs") if f.rule == CHECK]

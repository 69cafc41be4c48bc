"""`input-unnormalized` (trace): found in a recorded child result where the bug is, not where it is absent.

The measurements are real child results recorded once (``recorded/``; refresh with tests/runtime/recorded.py).
"""

from __future__ import annotations

import pytest

from ..recorded import findings_of

CHECK = "input-unnormalized"


def test_input_unnormalized_is_found():
    found = findings_of("zoo_raw_pixels_bug", CHECK)
    assert found, "expected input-unnormalized in the recorded zoo_raw_pixels_bug run"
    assert found[0].message and found[0].observation and found[0].next_test


def test_input_unnormalized_is_not_found_without_the_bug():
    assert not findings_of("zoo_raw_pixels_fixed", CHECK)


def test_unnormalised_inputs_in_a_run_that_trains_normally_are_info():
    """Inputs at std ~27 in a run whose first loss was high but came down below ln C and keeps falling (a corpus
    fixed twin that used to draw a warning): info. The same inputs with the loss still high stay a warning."""
    from .measurements import findings_for

    stats = {"shape": [128, 20], "dtype": "float32", "min": -65.6, "max": 98.0, "mean": 2.2, "std": 26.7, "integral": False, "nan": 0, "inf": 0}
    recovered = [7.4, 3.0, 1.6, 1.2] + [1.0 - 0.02 * i for i in range(16)]
    data = {"input_stats": stats, "losses": recovered,
            "loss_calls": {"cross_entropy": {"first_value": 7.4, "classes": 4, "values": recovered, "calls": 20}}}
    assert [f.severity for f in findings_for(CHECK, data)] == ["info"]
    stuck = [7.4, 6.0, 5.5, 5.2] + [5.0 - 0.01 * i for i in range(16)]
    data = {"input_stats": stats, "losses": stuck, "loss_calls": {"cross_entropy": {"first_value": 7.4, "classes": 4, "values": stuck, "calls": 20}}}
    assert [f.severity for f in findings_for(CHECK, data)] == ["warning"]


def test_a_fast_recovery_and_an_evaluation_metric_do_not_make_it_a_warning():
    """The loss fell from 7.4 to about 1.0 within 20 steps (still above ln 4 averaged over the last third, but its
    latest values are below it), and a no_grad evaluation nll_loss with one value sits beside it: info. The
    same start with the loss still above ln C at the end stays a warning."""
    from .measurements import findings_for

    stats = {"shape": [128, 20], "dtype": "float32", "min": -65.6, "max": 98.0, "mean": 2.2, "std": 26.7, "integral": False, "nan": 0, "inf": 0}
    fast = [7.4, 6.1, 5.0, 4.2, 3.6, 3.1, 2.7, 2.4, 2.2, 2.0, 1.9, 1.8, 1.7, 1.6, 1.5, 1.4, 1.3, 1.2, 1.1, 1.0]
    metric = {"first_value": 7.3, "classes": 4, "values": [7.3], "calls": 1, "grad_enabled": False}
    data = {"input_stats": stats, "losses": fast,
            "loss_calls": {"cross_entropy": {"first_value": 7.4, "classes": 4, "values": fast, "calls": 20}, "nll_loss": metric}}
    assert [f.severity for f in findings_for(CHECK, data)] == ["info"]
    slow = [v + 1.0 for v in fast]
    data["losses"] = slow
    data["loss_calls"]["cross_entropy"] = {"first_value": 8.4, "classes": 4, "values": slow, "calls": 20}
    assert [f.severity for f in findings_for(CHECK, data)] == ["warning"]


@pytest.mark.slow
@pytest.mark.parametrize("variant, bug", [("raw-kwargs", True), ("raw-dict", True), ("scaled-kwargs", False)])
def test_model_called_with_keyword_or_dict_inputs(variant: str, bug: bool):
    """model(**batch) and model(batch): the input is read from the keywords / the dict, not only a positional tensor."""
    from .measurements import traced

    assert bool([f for f in traced("keyword_inputs.py", variant, steps=10) if f.rule == "input-unnormalized"]) == bug

"""`optimizer-never-stepped` (trace): a finished script with an optimizer and backward passes but no step."""

from __future__ import annotations

import pytest

from .measurements import findings_for

CHECK = "optimizer-never-stepped"


def _data(backwards: int, built: int = 1, ended: str = "finished") -> dict:
    return {"loop_order": {"optimizers_built": built, "backwards_without_step": backwards, "ended": ended}}


def test_found_when_the_script_finished_without_a_step():
    (hit,) = findings_for(CHECK, _data(48))
    assert hit.severity == "warning" and hit.category == "training-loop" and "48 backward" in hit.message


def test_not_found_without_an_optimizer_few_backwards_or_an_unfinished_run():
    assert not findings_for(CHECK, _data(48, built=0))  # gradients for saliency maps, no optimizer
    assert not findings_for(CHECK, _data(3))
    assert not findings_for(CHECK, _data(48, ended="exception"))  # a crash or a timeout says nothing about the loop
    assert not findings_for(CHECK, {})


@pytest.mark.slow
@pytest.mark.parametrize("variant, bug", [("accum-exceeds-epoch", True), ("accum-fits", False), ("accum-final-step", False)])
def test_accumulation_in_a_real_script(variant: str, bug: bool):
    """No step at all is a 'no-steps' error entry of the report too, which `traced` refuses: trace is called directly."""
    from pathlib import Path

    from mlsleuth.runtime.trace import trace

    folder = Path(__file__).resolve().parents[2] / "trace_scripts" / "families"
    report = trace(folder / "loop_order.py", args=[variant], steps=10, cwd=folder, timeout_s=180)
    assert bool([f for f in report.findings if f.rule == CHECK]) == bug

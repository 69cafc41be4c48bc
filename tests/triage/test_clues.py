"""Static and runtime findings on one cause become one clue with both kinds of evidence, ranked for the symptom."""

from __future__ import annotations

from mlsleuth.report import Finding, Location
from mlsleuth.runtime.registry import checks_of
from mlsleuth.triage.clues import kinds, merge, rank
from mlsleuth.triage.symptoms import read_symptom

ROLES = {c.id: c.role for c in checks_of("trace").values()}


def _static(rule: str, line: int, category: str = "loss", severity: str = "error") -> Finding:
    return Finding(rule=rule, category=category, severity=severity, message=f"{rule} here",
                   location=Location(path="train.py", line=line), observation=f"code of {rule}", next_test=f"confirm {rule}")


def _runtime(rule: str, category: str = "loss", severity: str = "error", **measurements) -> Finding:
    return Finding(rule=rule, category=category, severity=severity, message=f"{rule} seen",
                   location=Location(step=0, phase="loss", module="out"), observation=f"numbers of {rule}",
                   measurements=dict(measurements))


def test_a_static_rule_and_its_runtime_twin_are_one_clue_with_both_kinds_of_evidence() -> None:
    clues = merge([_static("softmax-into-logit-loss", 22)], [_runtime("softmax-into-cross-entropy")])
    assert len(clues) == 1
    clue = clues[0]
    assert kinds(clue) == {"static", "runtime"}
    assert clue.rule == "softmax-into-logit-loss"
    assert (clue.location.path, clue.location.line, clue.location.step, clue.location.module) == ("train.py", 22, 0, "out")
    assert clue.measurements["ids"] == ["softmax-into-cross-entropy", "softmax-into-logit-loss"]
    assert clue.next_test == "confirm softmax-into-logit-loss"


def test_unrelated_findings_stay_apart_and_info_is_left_out() -> None:
    clues = merge([_static("softmax-into-logit-loss", 22), _static("missing-zero-grad", 30, "training-loop", "info")],
                  [_runtime("zero-grad-missing", "training-loop")])
    assert sorted(c.rule for c in clues) == ["softmax-into-logit-loss", "zero-grad-missing"]
    assert all(len(kinds(c)) == 1 for c in clues)


def test_consequences_ride_with_the_cause_trace_attached_them_to() -> None:
    cause = _runtime("softmax-into-cross-entropy")
    symptom = _runtime("loss-not-decreasing", severity="warning", consistent_with="softmax-into-cross-entropy")
    clues = merge([_static("softmax-into-logit-loss", 22)], [cause, symptom])
    assert len(clues) == 1
    assert [e["kind"] for e in clues[0].measurements["evidence"]] == ["static", "runtime", "consequence"]


def test_the_symptom_puts_the_fitting_clue_first_and_corroboration_breaks_ties() -> None:
    eval_bug = _static("eval-without-eval-mode", 5, "evaluation")
    softmax = _static("softmax-into-logit-loss", 22)
    clues = merge([eval_bug, softmax], [])
    assert rank(clues, read_symptom("loss stuck at 2.3"), ROLES)[0].rule == "softmax-into-logit-loss"
    assert rank(merge([eval_bug, softmax], []), read_symptom("val accuracy much lower than train"), ROLES)[0].rule == "eval-without-eval-mode"
    # no symptom: the clue with static and runtime evidence leads
    both = merge([eval_bug, softmax], [_runtime("softmax-into-cross-entropy")])
    assert rank(both, [], ROLES)[0].rule == "softmax-into-logit-loss"


def test_nothing_in_gives_no_clues() -> None:
    assert merge([], []) == []
    assert rank([], read_symptom("loss stuck"), ROLES) == []


def test_a_cause_outranks_a_runtime_symptom_even_when_only_the_symptom_fits_the_complaint() -> None:
    flat = _runtime("loss-not-decreasing", "training-loop", "warning")
    resume = _static("checkpoint-without-scheduler-state", 33, "reproducibility", "warning")
    ordered = rank(merge([resume], [flat]), read_symptom("the loss plateaus"), ROLES)
    assert [c.rule for c in ordered] == ["checkpoint-without-scheduler-state", "loss-not-decreasing"]


def test_one_rule_twice_on_one_line_is_one_clue_and_a_missing_causal_mask_pairs_with_its_runtime_leak() -> None:
    static = [_static("causal-mask-missing", 18, "architecture"), _static("causal-mask-missing", 18, "architecture")]
    clues = merge(static, [_runtime("causal-leakage", "architecture")])
    assert len(clues) == 1 and kinds(clues[0]) == {"static", "runtime"}

"""Parent side of `mlsleuth nan`: input validation, JSON -> findings, trends, docs. No child processes."""

from __future__ import annotations

import pytest
from mlsleuth.catalog import load_all
from mlsleuth.process_runner import ChildResult
from mlsleuth.runtime.common import RuntimeInputError
from mlsleuth.runtime.nan.explain import explain_origin, forward_op_of, trend
from mlsleuth.runtime.nan.run import (
    build_findings,
    build_report,
    prepare_nan,
    split_target,
)
from mlsleuth.runtime.registry import checks_of

INFO = {"interpreter": "python", "mode": "script"}


def _stats(arg, **kw):
    base = {"arg": arg, "shape": [4], "dtype": "float32", "numel": 4, "nan": 0, "posinf": 0, "neginf": 0, "zeros": 0, "negatives": 0,
            "max": 1.0, "min": -1.0, "max_abs": 1.0, "dtype_max": 3.4e38}
    base.update(kw)
    return base


def _birth(op, phase="forward", module="enc.0", node=None, inputs=(), **kw):
    return {"kind": "birth", "index": 0, "op": op, "phase": phase, "module": module, "autograd_node": node, "parameter": kw.get("parameter"),
            "inputs": list(inputs), "output": {"numel": 4, "nan": 2, "posinf": 0, "neginf": 0}}


def _payload(failure=None, frames=(), replay=None, replay_failure=None, divergence=None, scaler=()):
    data = {"failure": failure, "frames": list(frames), "scaler_events": list(scaler), "scaler_events_total": len(scaler),
            "batch_file": None, "snapshots": {}}
    payload = {"status": "non-finite" if failure else "max-steps", "steps": 10, "observers": {"nan": data}, "observer_errors": []}
    if replay is not None:
        payload["replay_run"] = {"status": "non-finite", "nan": {"replay": replay, "failure": replay_failure, "divergence": divergence}}
    return payload


def _result(payload, **kw):
    return ChildResult(returncode=0, duration_s=1.0, result=payload, **kw)


# -- input validation ---------------------------------------------------------------------------
def test_split_target():
    assert split_target("train.py") == ("train.py", None)
    assert split_target("pkg/model.py:setup") == ("pkg/model.py", "setup")
    assert split_target("C:\\proj\\train.py") == ("C:\\proj\\train.py", None)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"max_steps": 0}, "--max-steps"),
    ({"max_steps": 2.5}, "--max-steps"),
    ({"snapshot_every": -1}, "--snapshot-every"),
    ({"memory_budget_mb": 0}, "--memory-budget"),
    ({"timeout_s": 0}, "--timeout"),
])
def test_bad_numbers_are_usage_errors(tmp_path, kwargs, message):
    script = tmp_path / "train.py"
    script.write_text("pass\n")
    with pytest.raises(RuntimeInputError, match=message):
        prepare_nan(script, cwd=tmp_path, **kwargs)


def test_bad_targets_are_usage_errors(tmp_path):
    with pytest.raises(RuntimeInputError, match="no such file"):
        prepare_nan(tmp_path / "missing.py")
    with pytest.raises(RuntimeInputError, match="folder"):
        prepare_nan(tmp_path)
    nb = tmp_path / "a.ipynb"
    nb.write_text("{}")
    with pytest.raises(RuntimeInputError, match="notebook"):
        prepare_nan(nb)
    script = tmp_path / "m.py"
    script.write_text("def setup():\n    pass\n")
    with pytest.raises(RuntimeInputError, match="FILE:FUNCTION"):
        prepare_nan(f"{script}:setup", args=["--lr", "1"])


def test_prepare_builds_an_unstarted_child(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("pass\n")
    prepared = prepare_nan(script, cwd=tmp_path, max_steps=7)
    assert prepared.tool == "nan" and prepared.child.proc is None
    assert prepared.child.argv[1].endswith("nan_main.py")
    assert prepared.info["max_steps"] == 7 and prepared.total_steps == 7
    prepared.child.cleanup()


# -- documentation -----------------------------------------------------------------------------
def test_every_check_is_documented_for_the_nan_tool():
    docs = load_all()
    checks = checks_of("nan")
    assert checks
    for rule_id, check in checks.items():
        category, severity = check.category, check.severity
        doc = docs[rule_id]
        assert (doc.tool, doc.category, doc.severity) == ("nan", category, severity)
        assert doc.finds and doc.why and doc.confirm and doc.instead


# -- interpretation ------------------------------------------------------------------------------
def test_clean_run_has_no_findings_and_says_so():
    report = build_report(_result(_payload()), info=INFO, path="train.py", command="mlsleuth nan train.py")
    assert report.findings == [] and report.errors == []
    assert report.summary.text == "no non-finite value within 10 steps (stopped at --max-steps)"


def test_trend_tells_steady_growth_from_a_sudden_event():
    growing = [{"step": i, "grad_norm": 2.0 * 5**i, "loss": 1.0} for i in range(6)]
    assert trend(growing, 6)["kind"] == "steady-growth"
    assert trend(growing, 6)["growth_per_step"] == pytest.approx(5.0)
    flat = [{"step": i, "grad_norm": 1.0 + 0.1 * (i % 2), "loss": 1.0} for i in range(6)]
    assert trend(flat, 6)["kind"] == "no-precursor"
    # a single noisy spike is not "steady growth"
    spiky = [{"step": i, "grad_norm": v} for i, v in enumerate([1.0, 30.0, 1.1, 0.9, 40.0, 1.0])]
    assert trend(spiky, 6)["kind"] == "no-precursor"
    assert trend(growing[:2], 2)["kind"] == "too-few-steps"


def test_forward_op_of_backward_nodes():
    assert forward_op_of("SqrtBackward0") == "aten::sqrt"
    assert forward_op_of("NativeLayerNormBackward0") == "aten::native_layer_norm"
    assert forward_op_of("torch::autograd::AccumulateGrad") is None


def test_explanations_read_the_right_input():
    obs, test, fix = explain_origin(_birth("aten::exp", inputs=[_stats("self", max=120.0)]), 4)
    assert "120" in obs and "88.72" in obs and "aten::exp" in test and "aten::exp" in fix
    # a softmax written by hand (its exp summed, then divided by the sum): subtract the row max
    softmax = {**_birth("aten::exp", inputs=[_stats("self", max=120.0)]), "consumers": ["aten::sum", "aten::div"]}
    _, test, fix = explain_origin(softmax, 4)
    assert "subtract the max" in fix and "row max" in test and "log space" not in fix
    assert "subtract the max" in explain_origin(_birth("aten::_softmax", inputs=[_stats("self", max=1e5)]), 4)[2]
    # exp feeding anything else (log(1 + exp(x)), log(sum(exp(x))), exp(x).mean()): stay in log space
    for consumers in (["aten::add", "aten::log"], ["aten::sum", "aten::log"], ["aten::mean"], []):
        origin = {**_birth("aten::exp", phase="loss", module=None, inputs=[_stats("self", max=200.0)]), "consumers": consumers}
        obs, test, fix = explain_origin(origin, 4)
        assert "Stay in log space" in fix and "torch.logsumexp" in fix and "F.softplus" in fix, consumers
        assert "subtract the max" not in fix and "row max" not in test and "not a softmax" in obs
    obs, test, _ = explain_origin(_birth("aten::div", inputs=[_stats("self", zeros=3), _stats("other", zeros=2)]), 4)
    assert "Denominator (other): 2 exact zero(s)" in obs and "Numerator: 3 zero(s)" in obs and "aten::div" in test
    obs, _, _ = explain_origin(_birth("aten::log", inputs=[_stats("self", zeros=1, negatives=2)]), 4)
    assert "1 zero(s) and 2 negative" in obs
    obs, test, _ = explain_origin(_birth("aten::addcdiv_", phase="optimizer", module=None, parameter="w",
                                         inputs=[_stats("self"), _stats("tensor1", zeros=4), _stats("tensor2", zeros=4)]), 0)
    assert "Denominator (tensor2): 4" in obs and "eps" in test
    obs, test, fix = explain_origin(_birth("aten::div", phase="backward", module="norm", node="SqrtBackward0",
                                           inputs=[_stats("self"), _stats("other", zeros=4)]), 0)
    assert "infinite at x = 0" in obs and "SqrtBackward0" in test and "aten::sqrt in module 'norm'" in fix


def test_birth_becomes_a_located_finding():
    origin = _birth("aten::exp", module="head.softmax", inputs=[_stats("self", max=300.0)])
    payload = _payload({"step": 3, "phase": "forward", "target": "loss", "loss": "nan"},
                       replay={"reproduced": True, "origin": origin, "origins": [origin], "step": 3},
                       replay_failure={"step": 3})
    [finding] = build_findings(payload, path="t.py", command="mlsleuth nan t.py")
    loc = finding.location
    assert (finding.rule, loc.step, loc.phase, loc.module, loc.op) == ("nan-born-forward", 3, "forward", "head.softmax", "aten::exp")


def test_replay_that_stays_finite_reports_nondeterminism_and_an_unlocalised_failure():
    payload = _payload({"step": 5, "phase": "backward", "target": "grad", "parameters": [{"parameter": "fc.weight"}]},
                       replay={"reproduced": False, "origin": None, "origins": []}, replay_failure=None,
                       divergence={"step": 1, "first_run": 2.0, "replay": 2.5, "relative_difference": 0.25})
    findings = build_findings(payload, path="t.py", command="mlsleuth nan t.py")
    rules = sorted(f.rule for f in findings)
    assert rules == ["nan-born-backward", "nan-replay-nondeterministic"]
    main = next(f for f in findings if f.rule == "nan-born-backward")
    assert main.location.op is None and main.location.parameter == "fc.weight"
    nondet = next(f for f in findings if f.rule == "nan-replay-nondeterministic")
    assert "after step 1" in nondet.observation and "without any non-finite value" in nondet.observation


def test_data_failure_names_field_and_rows():
    payload = _payload({"step": 4, "phase": "data", "fields": [{"field": "inputs[0]", "shape": [8, 5], "nan": 1, "inf": 0, "rows": [5], "rows_total": 1}]})
    [finding] = build_findings(payload, path="t.py", command="c")
    assert finding.rule == "nan-in-batch" and finding.location.phase == "data"
    assert "rows [5]" in finding.observation


def test_scaler_overflow_is_info():
    payload = _payload(scaler=[{"step": 0, "scale_before": 65536.0, "scale_after": 32768.0}])
    [finding] = build_findings(payload, path="t.py", command="c")
    assert (finding.rule, finding.severity) == ("nan-amp-overflow-skip", "info")


def test_timeout_and_crash_become_errors():
    timed_out = ChildResult(returncode=-9, duration_s=30.0, timed_out=True)
    report = build_report(timed_out, info=INFO, path="t.py", command="c")
    assert [e.kind for e in report.errors] == ["timeout"]
    crashed = ChildResult(returncode=-11, duration_s=1.0, stderr_tail="Segmentation fault")
    report = build_report(crashed, info=INFO, path="t.py", command="c")
    assert [e.kind for e in report.errors] == ["crash"]
    assert report.summary.text.startswith("no result")


# -- replayed steps, saved batch, merged frames ------------------------------------------------------
def test_replay_sentence_names_the_replayed_steps_and_how_each_was_checked():
    from mlsleuth.runtime.nan.explain import replay_sentence

    several = {"replayed": {"from": "snapshot", "first": 10, "failing": 13, "checked": [10, 12], "instrumented": 13}}
    assert replay_sentence(several) == (" Replayed steps 10-13 from the snapshot taken at the start of step 10: steps 10-12 with the cheap checks "
                                        "(parameters compared with the first run after each), step 13 with every operation checked.")
    one = {"replayed": {"from": "script-start", "first": 0, "failing": 0}}
    assert replay_sentence(one) == " Replayed step 0 by running the script again from its start with every operation checked."
    assert replay_sentence({}) == "" and replay_sentence({"status": "no-snapshot", "error": "x"}) == ""


def test_saved_sentence_says_what_the_batch_holds():
    from mlsleuth.runtime.nan.explain import saved_sentence

    data = {"batch_file": "s/nan_step7.pt", "saved": {"batch_kind": "model-call", "targets_captured": False, "snapshot_step": 5, "replay_steps": [5, 6, 7]}}
    text = saved_sentence(data, 7)
    assert "index 7" in text and "not the loss targets" in text and "start of step 5 and the batches of steps 5-7" in text
    data["saved"].update(targets_captured=True)
    assert "target given to the loss module" in saved_sentence(data, 7)
    setup = {"batch_file": "f.pt", "saved": {"batch_kind": "setup", "snapshot_step": 7, "replay_steps": [7]}}
    assert "inputs and targets" in saved_sentence(setup, 7) and "batches of step 7" in saved_sentence(setup, 7)
    assert saved_sentence({"batch_file": None}, 3) == ""


def test_replay_frames_add_activation_rms_to_the_first_run_frames():
    from mlsleuth.runtime.nan.explain import merge_frames

    first = [{"step": 3, "loss": 1.0, "layers": {"0": {"grad_norm": 0.5}}}, {"step": 4, "loss": 2.0, "layers": {}}]
    replayed = [{"step": 4, "layers": {"0": {"act_rms": 3.0, "grad_norm": 0.7}, "1": {"act_rms": 1.5}}}]
    merged = merge_frames(first, replayed)
    assert merged[0] == first[0]
    assert merged[1]["layers"] == {"0": {"act_rms": 3.0}, "1": {"act_rms": 1.5}}
    assert first[1]["layers"] == {}  # the input is not modified
    assert merge_frames(first, []) == first

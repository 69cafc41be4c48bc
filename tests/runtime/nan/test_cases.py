"""End to end: `mlsleuth nan` on scripts that go non-finite in different ways, and their clean twins.

Each case in tests/nan_cases/ is tiny (a few steps of a model with a few hundred weights); the
assertions pin the step, pass, module and operation the tool must name.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("torch")

from mlsleuth.runtime.nan import locate_nan

from ..recorded import report as recorded_report

CASES_DIR = Path(__file__).resolve().parents[2] / "nan_cases"
MAIN_RULES = ("nan-in-batch", "nan-born-forward", "nan-born-backward", "nan-born-optimizer")

# case: (step, phase, module, op, rule)
EXPECTED = {
    "softmax_overflow": (3, "forward", "softmax", "aten::exp", "nan-born-forward"),
    "zero_std": (6, "forward", "0", "aten::div", "nan-born-forward"),
    "sqrt_backward": (0, "backward", "norm", "aten::div", "nan-born-backward"),
    "lr_explode": (5, "forward", "1", "aten::addmm", "nan-born-forward"),
    "nan_in_data": (4, "data", None, None, "nan-in-batch"),
    "adam_eps_zero": (0, "optimizer", None, "aten::addcdiv_", "nan-born-optimizer"),
    "where_trap": (0, "backward", "logfeat", "aten::div", "nan-born-backward"),
    "log_zero": (2, "loss", None, "aten::log", "nan-born-forward"),
    "exp_loss_overflow": (4, "loss", None, "aten::exp", "nan-born-forward"),
}

LIVE_SAMPLE = ("softmax_overflow", "sqrt_backward")  # localised by a real nan child; the others read recordings


def _main(report):
    main = [f for f in report.findings if f.rule in MAIN_RULES]
    assert len(main) == 1, [f.rule for f in report.findings]
    return main[0]


def _run(target, tmp_path, **kwargs):
    kwargs.setdefault("max_steps", 100)
    kwargs.setdefault("timeout_s", 120)
    return locate_nan(target, cwd=tmp_path, save_dir=tmp_path / "saved", **kwargs)


def _assert_localised(report, case):
    step, phase, module, op, rule = EXPECTED[case]
    assert report.errors == []
    finding = _main(report)
    loc = finding.location
    assert (finding.rule, loc.step, loc.phase, loc.module, loc.op) == (rule, step, phase, module, op)
    assert finding.next_test and finding.observation
    if op is not None:
        assert op in finding.next_test  # the next test names the operation it is about
    assert not any(f.rule == "nan-replay-nondeterministic" for f in report.findings)
    saved = Path(report.summary.stats["batch_file"])
    assert saved.name == f"nan_step{step}.pt"
    DETAILS.get(case, lambda f: None)(finding)
    return saved


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_case_is_localised(case):
    """From the case's recorded child result (``recorded/nan_<case>.json``; the batch file was written then)."""
    _assert_localised(recorded_report(f"nan_{case}"), case)


@pytest.mark.slow
@pytest.mark.parametrize("case", LIVE_SAMPLE)
def test_case_is_localised_by_a_real_child(case, tmp_path):
    saved = _assert_localised(_run(CASES_DIR / f"{case}.py", tmp_path), case)
    assert saved.is_file()
    import torch

    payload = torch.load(saved)  # torch.load's default weights_only=True reads it (no numpy or other pickled globals)
    assert payload["step"] == EXPECTED[case][0]


def _data_details(f):
    assert "inputs[0]" in f.observation and "rows [5]" in f.observation


def _where_details(f):
    assert f.measurements["origin"]["autograd_node"] == "LogBackward0"
    assert "aten::log" in f.fix and "masked" in f.observation


def _adam_details(f):
    assert f.location.parameter == "emb.weight"
    assert "eps=0.0" in f.observation and "exp_avg_sq has" in f.observation


def _softmax_details(f):
    assert "88.72" in f.observation  # exp's overflow threshold in float32, next to the seen maximum
    # exp -> sum -> div: a hand-written softmax, whose fix is to subtract the row max
    assert "subtract the max" in f.fix and "torch.softmax" in f.fix and "log space" not in f.fix


def _exp_loss_details(f):
    # exp -> add -> log in a hand-written loss: not a softmax, so the fix is to stay in log space
    assert "Stay in log space" in f.fix and "F.softplus" in f.fix and "torch.logsumexp" in f.fix
    assert "subtract the max" not in f.fix and "row max" not in f.next_test
    assert "not a softmax" in f.observation and "aten::log" in f.observation


def _lr_details(f):
    assert f.measurements["trend"]["kind"] == "steady-growth"


def _zero_std_details(f):
    assert f.measurements["trend"]["kind"] == "no-precursor"
    assert "1 exact zero(s)" in f.observation


def _sqrt_details(f):
    assert f.measurements["origin"]["autograd_node"] == "SqrtBackward0"
    assert "aten::sqrt" in f.next_test


DETAILS = {
    "nan_in_data": _data_details,
    "where_trap": _where_details,
    "adam_eps_zero": _adam_details,
    "softmax_overflow": _softmax_details,
    "exp_loss_overflow": _exp_loss_details,
    "lr_explode": _lr_details,
    "zero_std": _zero_std_details,
    "sqrt_backward": _sqrt_details,
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_clean_twin_reports_no_nonfinite_value(case, tmp_path):
    report = _run(CASES_DIR / f"{case}.py", tmp_path, args=["--clean"])
    assert report.findings == [] and report.errors == []
    steps = report.summary.stats["steps_watched"]
    assert steps > 0
    assert report.summary.text.startswith(f"no non-finite value within {steps} steps")
    assert report.exit_code() == 0
    assert not (tmp_path / "saved").exists()


@pytest.mark.slow
@pytest.mark.parametrize(("case", "expected"), [
    ("zero_std", (6, "forward", "0", "aten::div", "nan-born-forward")),
    ("adam_eps_zero", (0, "optimizer", None, "aten::addcdiv_", "nan-born-optimizer")),
])
def test_setup_function_mode_replays_from_the_snapshot_ring(case, expected, tmp_path):
    step, phase, module, op, rule = expected
    report = _run(f"{CASES_DIR / case}.py:setup", tmp_path, snapshot_every=5)
    finding = _main(report)
    assert (finding.rule, finding.location.step, finding.location.phase, finding.location.module, finding.location.op) == (rule, step, phase, module, op)
    assert finding.measurements["replay"]["reproduced"] is True
    assert report.summary.stats["mode"] == "function"
    assert report.summary.stats["snapshots"]["steps"][0] == 0


@pytest.mark.slow
def test_setup_function_clean_twin(tmp_path, monkeypatch):
    # the setup reads --clean from sys.argv at import; emulate with a wrapper file
    from .test_replay import setup_wrapper

    wrapper = setup_wrapper(tmp_path, "zero_std", "--clean")
    report = _run(f"{wrapper}:setup", tmp_path)
    assert report.findings == [] and report.errors == []
    assert report.summary.text.startswith("no non-finite value within")


@pytest.mark.slow
def test_unseeded_run_is_reported_as_nondeterministic(tmp_path):
    report = _run(CASES_DIR / "unseeded.py", tmp_path)
    rules = [f.rule for f in report.findings]
    assert "nan-replay-nondeterministic" in rules
    nondet = next(f for f in report.findings if f.rule == "nan-replay-nondeterministic")
    assert "use_deterministic_algorithms" in nondet.next_test


@pytest.mark.slow
def test_seeded_twin_is_deterministic_and_names_the_preprocessing_op(tmp_path):
    report = _run(CASES_DIR / "unseeded.py", tmp_path, args=["--clean"])
    assert [f.rule for f in report.findings] == ["nan-in-batch"]
    assert report.findings[0].location.op == "aten::div"


@pytest.mark.slow
def test_grad_scaler_overflow_is_info_not_a_failure(tmp_path):
    report = _run(CASES_DIR / "amp_scaler.py", tmp_path)
    assert [f.rule for f in report.findings] == ["nan-amp-overflow-skip"]
    assert report.findings[0].severity == "info"
    assert report.summary.text.startswith("no non-finite value within")
    clean = _run(CASES_DIR / "amp_scaler.py", tmp_path, args=["--clean"])
    assert clean.findings == []


@pytest.mark.slow
def test_user_exception_is_a_clear_error(tmp_path):
    script = tmp_path / "boom.py"
    script.write_text(textwrap.dedent("""
        import torch
        model = torch.nn.Linear(2, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for step in range(5):
            loss = model(torch.ones(3, 2)).sum()
            opt.zero_grad(); loss.backward(); opt.step()
            if step == 2:
                raise KeyError("missing column 'label'")
    """))
    report = _run(script, tmp_path)
    assert report.findings == []
    assert [e.kind for e in report.errors] == ["user-exception"]
    assert "KeyError" in report.errors[0].message and "after step 2" in report.errors[0].message
    assert "boom.py" in (report.errors[0].detail or "")


@pytest.mark.slow
def test_hang_is_killed_at_the_timeout(tmp_path):
    script = tmp_path / "hang.py"
    script.write_text("import time\nimport torch\nwhile True:\n    time.sleep(0.1)\n")
    report = _run(script, tmp_path, timeout_s=8)
    assert [e.kind for e in report.errors] == ["timeout"]
    assert report.exit_code() == 3  # the code could not be run to the end: not "bugs found"


@pytest.mark.slow
def test_script_without_training_loop(tmp_path):
    script = tmp_path / "noloop.py"
    script.write_text("import torch\nprint(torch.ones(2).sum())\n")
    report = _run(script, tmp_path)
    assert [e.kind for e in report.errors] == ["no-steps"]


@pytest.mark.slow
def test_bad_setup_function_is_a_setup_error(tmp_path):
    bad = tmp_path / "bad_setup.py"
    bad.write_text("def setup():\n    return {'model': 3}\n")
    report = _run(f"{bad}:setup", tmp_path)
    assert [e.kind for e in report.errors] == ["setup-error"]
    assert "nn.Module" in report.errors[0].message


@pytest.mark.slow
def test_cli_json_output_and_exit_status(tmp_path, capsys):
    from mlsleuth.cli import main

    code = main(["nan", str(CASES_DIR / "sqrt_backward.py"), "--format", "json", "--save-dir", str(tmp_path), "--max-steps", "20"])
    assert code == 1
    data = json.loads(capsys.readouterr().out)
    assert data["tool"] == "nan"
    assert data["findings"][0]["location"]["op"] == "aten::div"
    code = main(["nan", str(CASES_DIR / "sqrt_backward.py"), "--save-dir", str(tmp_path), "--", "--clean"])
    assert code == 0
    assert "no non-finite value within 8 steps" in capsys.readouterr().out


@pytest.mark.slow
def test_deliberate_infinities_in_a_healthy_model_are_not_reported(tmp_path):
    """Attention masks filled with -inf and a clamp at +inf are normal; only values that reach the
    loss, the gradients or the parameters count."""
    script = tmp_path / "attention.py"
    script.write_text(textwrap.dedent("""
        import torch
        from torch import nn

        torch.manual_seed(0)
        attn = nn.MultiheadAttention(8, 2, batch_first=True)
        head = nn.Linear(8, 1)
        opt = torch.optim.Adam([*attn.parameters(), *head.parameters()], lr=1e-3)
        causal = torch.full((5, 5), float("-inf")).triu(1)  # the usual additive causal mask
        for _ in range(6):
            x = torch.randn(4, 5, 8)
            scores = x @ x.transpose(1, 2)
            weights = torch.softmax(scores + causal, dim=-1)  # -inf above the diagonal, by design
            out, _ = attn(weights @ x, x, x, attn_mask=causal)
            loss = head(out).clamp(max=float("inf")).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    """))
    report = _run(script, tmp_path, snapshot_every=2, memory_budget_mb=0.001)
    assert report.findings == [] and report.errors == []
    assert report.summary.text == "no non-finite value within 6 steps (the script ran to its end)"
    assert "memory budget" in report.summary.stats["snapshots"]["disabled_reason"]


@pytest.mark.slow
def test_script_that_stops_itself_on_nan_is_still_localised(tmp_path):
    """Many scripts raise on a NaN loss before calling backward; the watcher then never sees the loss."""
    script = tmp_path / "raise_on_nan.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(CASES_DIR)!r})
        import torch
        import softmax_overflow as case

        torch.manual_seed(0)
        model = case.Classifier()
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        for x, y in case.batches():
            probs = model(x)
            loss = -torch.log(probs[torch.arange(len(y)), y] + 1e-9).mean()
            if torch.isnan(loss):
                raise FloatingPointError("loss is NaN")
            opt.zero_grad()
            loss.backward()
            opt.step()
    """))
    report = _run(script, tmp_path)
    finding = _main(report)
    assert (finding.location.step, finding.location.module, finding.location.op) == (3, "softmax", "aten::exp")
    assert [e.kind for e in report.errors] == ["user-exception"]


_GUARDED = """
    import math
    import sys
    import torch
    from torch import nn

    torch.manual_seed(0)
    X = torch.randn(512, 16)
    Y = (X[:, :4] > 0).float()
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    opt = torch.optim.Adam(model.parameters(), lr=3e-2)
    CLEAN = "--clean" in sys.argv


    def bce_by_hand(logits, t):
        if CLEAN:
            return nn.functional.binary_cross_entropy_with_logits(logits, t)
        p = torch.sigmoid(logits)
        return -(t * torch.log(p) + (1 - t) * torch.log(1 - p)).mean()


    for step in range(60):
        idx = torch.randint(0, 512, (64,))
        loss = bce_by_hand(model(X[idx]), Y[idx])
        acc = ((model(X[idx]) > 0).float() == Y[idx]).float().mean()
        if torch.isnan(acc):
            break
        if GUARD:
            break
        opt.zero_grad()
        loss.backward()
        opt.step()
"""


@pytest.mark.slow
@pytest.mark.parametrize("guard", ["not torch.isfinite(loss)", "math.isnan(loss.item())", "loss.isnan().any()"])
def test_a_loss_the_script_tests_and_stops_on_before_backward_is_localised(guard, tmp_path):
    """The script's own NaN test stops the run (``break``, no exception) on a loss computed outside any module."""
    script = tmp_path / "guarded.py"
    script.write_text(textwrap.dedent(_GUARDED).replace("GUARD", guard))
    report = _run(script, tmp_path)
    finding = _main(report)
    assert finding.rule == "nan-born-forward"
    assert (finding.location.phase, finding.location.op) == ("loss", "aten::log")
    assert report.errors == []


@pytest.mark.slow
def test_the_guarded_clean_twin_and_metric_tests_stay_silent(tmp_path):
    script = tmp_path / "guarded.py"
    script.write_text(textwrap.dedent(_GUARDED).replace("GUARD", "math.isnan(loss.item())"))
    report = _run(script, tmp_path, args=["--clean"])
    assert report.findings == [] and report.errors == []

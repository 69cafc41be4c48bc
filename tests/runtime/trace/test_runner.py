"""The script runner (runtime/child/run_user_script.py) and the trace command's process handling."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from mlsleuth.runtime.common import RuntimeInputError, choose_interpreter
from mlsleuth.runtime.trace import prepare_trace, trace

from ..recorded import report as recorded_report

TESTS = Path(__file__).resolve().parents[2]
SCRIPTS = TESTS / "trace_scripts"
HARNESS = TESTS.parent / "server" / "mlsleuth" / "runtime" / "child"


@pytest.fixture()
def bootstrap(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(HARNESS))
    monkeypatch.setenv("MLSLEUTH_RESULT", str(tmp_path / "result.json"))
    monkeypatch.delenv("MLSLEUTH_PROGRESS", raising=False)
    import run_user_script as module

    return module


def _observer_cls():
    from observer import Observer

    class Recorder(Observer):
        name = "recorder"

        def __init__(self):
            self.events = []

        def on_backward_start(self, runner, tensors):
            self.events.append("B")

        def on_step_end(self, runner, optimizer):
            self.events.append(f"S{runner.step}")

        def on_end(self, runner, reason):
            self.events.append(reason)

        def result(self):
            return {"events": self.events}

    return Recorder


def test_runner_stops_a_script_that_swallows_exceptions(bootstrap):
    rec = _observer_cls()()
    payload = bootstrap.run(str(SCRIPTS / "swallows_exceptions.py"), [], observers=[rec], max_steps=4, write=False)
    assert payload["status"] == "max-steps"
    assert payload["steps"] == 4 and payload["last_good_step"] == 3
    assert payload["observers"]["recorder"]["events"] == ["B", "S1", "B", "S2", "B", "S3", "B", "S4", "max-steps"]


def test_runner_removes_its_patches(bootstrap):
    before = (torch.Tensor.backward, torch.optim.Optimizer.zero_grad, torch.nn.Module.train, torch.autograd.backward)
    bootstrap.run(str(SCRIPTS / "swallows_exceptions.py"), [], observers=[_observer_cls()()], max_steps=2, write=False)
    after = (torch.Tensor.backward, torch.optim.Optimizer.zero_grad, torch.nn.Module.train, torch.autograd.backward)
    assert before == after


def test_runner_reports_user_exception_with_last_good_step(bootstrap):
    payload = bootstrap.run(str(SCRIPTS / "raises_at_step3.py"), [], observers=[], max_steps=20, write=True)
    assert payload["status"] == "exception"
    assert payload["steps"] == 3 and payload["last_good_step"] == 2
    assert payload["exception"]["type"] == "RuntimeError"
    assert "raises_at_step3.py" in payload["exception"]["traceback"]
    assert "run_user_script.py" not in payload["exception"]["traceback"]
    assert Path(os.environ["MLSLEUTH_RESULT"]).exists()


def test_runner_observer_errors_do_not_break_the_script(bootstrap):
    from observer import Observer

    class Broken(Observer):
        name = "broken"

        def on_step_end(self, runner, optimizer):
            raise ValueError("observer bug")

    payload = bootstrap.run(str(SCRIPTS / "swallows_exceptions.py"), [], observers=[Broken()], max_steps=3, write=False)
    assert payload["status"] == "max-steps" and payload["steps"] == 3
    assert payload["observer_errors"] and "observer bug" in payload["observer_errors"][0]["traceback"]
@pytest.mark.slow
def test_trace_passes_argv_and_script_folder(tmp_path):
    report = trace(SCRIPTS / "reads_argv.py", args=["--lr", "0.01"], steps=5, cwd=tmp_path, timeout_s=120)
    assert report.errors == [], [e.message for e in report.errors]
    assert report.summary.stats["status"] == "finished"
    assert report.summary.stats["steps_traced"] == 3
@pytest.mark.slow
def test_trace_user_exception_becomes_an_error_entry():
    report = trace(SCRIPTS / "raises_at_step3.py", steps=20, cwd=SCRIPTS, timeout_s=120)
    kinds = [e.kind for e in report.errors]
    assert kinds == ["user-exception"]
    assert "after step 2" in report.errors[0].message
    assert "mat1 and mat2" in (report.errors[0].detail or "")
@pytest.mark.slow
def test_trace_hard_exit_reports_the_last_step_not_a_throttled_one():
    """Issue 16 item 17: progress lines are throttled; after os._exit the last completed step
    must still be exact (7), not the last progress line that got through (1)."""
    report = trace(SCRIPTS / "exits_hard_at_step7.py", steps=20, cwd=SCRIPTS, timeout_s=120)
    assert [e.kind for e in report.errors] == ["crash"], [e.message for e in report.errors]
    assert report.errors[0].message.endswith("last completed optimizer step: 7")


@pytest.mark.slow
def test_trace_hang_becomes_a_timeout_entry():
    report = trace(SCRIPTS / "hangs.py", steps=5, cwd=SCRIPTS, timeout_s=8)
    assert [e.kind for e in report.errors] == ["timeout"]
    assert "before the first optimizer step" in report.errors[0].message
@pytest.mark.slow
def test_trace_script_without_training_says_so():
    report = trace(SCRIPTS / "no_training.py", steps=5, cwd=SCRIPTS, timeout_s=120)
    assert [e.kind for e in report.errors] == ["no-steps"]
    assert report.findings == []
@pytest.mark.slow
def test_trace_reports_missing_torch_in_chosen_interpreter(tmp_path):
    fake = tmp_path / "python"
    fake.write_text(f"#!/bin/sh\nexec {sys.executable} -S -I \"$@\"\n")
    fake.chmod(0o755)
    env_python = str(fake)
    # -I -S: no site-packages, so torch is not importable in this 'environment'
    report = trace(SCRIPTS / "no_training.py", steps=5, cwd=SCRIPTS, timeout_s=120, python=env_python)
    assert [e.kind for e in report.errors] == ["environment"]
    assert env_python in report.errors[0].message


def test_interpreter_detection(tmp_path):
    project = tmp_path / "proj"
    (project / "src").mkdir(parents=True)
    (project / "pyproject.toml").write_text("")
    venv_python = project / ".venv" / "bin" / "python"
    venv_python.parent.mkdir(parents=True)
    venv_python.symlink_to(sys.executable)
    chosen, why = choose_interpreter(None, project / "src")
    assert chosen == str(venv_python) and "virtual environment" in why
    # a venv above the project root is not used
    other = tmp_path / "other"
    other.mkdir()
    (other / "setup.py").write_text("")
    assert choose_interpreter(None, other)[0] == sys.executable
    assert choose_interpreter(sys.executable, other) == (sys.executable, "--python")
    with pytest.raises(RuntimeInputError, match="no such file"):
        choose_interpreter(str(tmp_path / "nope"), other)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"steps": 0}, "--steps"), ({"timeout_s": -1}, "--timeout"), ({"memory_limit_mb": 1}, "--memory-limit")],
)
def test_prepare_trace_rejects_bad_arguments(kwargs, message):
    with pytest.raises(RuntimeInputError, match=message):
        prepare_trace(SCRIPTS / "hangs.py", **kwargs)


def test_prepare_trace_rejects_missing_and_folder():
    with pytest.raises(RuntimeInputError, match="no such script"):
        prepare_trace(SCRIPTS / "missing.py")
    with pytest.raises(RuntimeInputError, match="folder"):
        prepare_trace(SCRIPTS)


def test_prepared_child_is_not_started():
    prepared = prepare_trace(SCRIPTS / "hangs.py", steps=3)
    try:
        assert prepared.child.proc is None and prepared.tool == "trace" and prepared.total_steps == 3
    finally:
        prepared.child.cleanup()


def test_cli_usage_errors(capsys):
    from mlsleuth.cli import main

    assert main(["trace", str(SCRIPTS / "missing.py")]) == 2
    assert "no such script" in capsys.readouterr().err
    assert main(["trace", str(SCRIPTS / "hangs.py"), "stray"]) == 2
    assert "after `--`" in capsys.readouterr().err
@pytest.mark.slow
def test_cli_options_after_script_and_json_output(capsys, tmp_path):
    from mlsleuth.cli import main

    code = main(["trace", str(SCRIPTS / "reads_argv.py"), "--steps", "2", "--format", "json", "--cwd", str(tmp_path), "--", "--lr", "0.01"])
    out = capsys.readouterr().out
    import json

    report = json.loads(out)
    assert report["tool"] == "trace" and report["summary"]["stats"]["steps_requested"] == 2
    assert report["summary"]["stats"]["status"] == "max-steps"
    assert code == 0


@pytest.mark.parametrize("script", ["gan_two_optimizers.py", "manual_grad_reset.py", "grad_accumulation.py"])
def test_correct_gradient_handling_is_not_flagged(script):
    """Realistic negatives for the call-order checks: two optimizers, manual resets, accumulation."""
    report = recorded_report(f"script_{script[:-3]}")  # trace(SCRIPTS / script, steps=12), recorded
    assert report.errors == [], [e.message for e in report.errors]
    flagged = {f.rule for f in report.findings}
    assert not flagged & {"zero-grad-missing", "zero-grad-before-step", "step-without-backward"}, flagged


@pytest.mark.parametrize("script", ["cnn_dataloader.py", "tiny_transformer_lm.py", "regression_ema_teacher.py", "checkpoints_scheduler.py"])
def test_realistic_healthy_scripts_raise_no_warning(script):
    """DataLoader workers + BatchNorm + Dropout + eval(); token inputs with padding and warmup from LR 0;
    an EMA teacher evaluated under no_grad every step: none of these is a bug."""
    report = recorded_report(f"script_{script[:-3]}_30")  # trace(SCRIPTS / script, steps=30), recorded
    assert report.errors == [], [e.message for e in report.errors]
    noisy = [(f.rule, f.location.module, f.observation) for f in report.findings if f.severity != "info"]
    assert noisy == []
    assert "batch_independence_skipped" not in report.summary.stats, report.summary.stats.get("batch_independence_skipped")


def test_batch_dependence_probe(bootstrap):
    import probes
    from torch import nn

    torch.manual_seed(0)

    class Mixer(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Linear(4, 4)
            self.fc = nn.Linear(8, 2)

        def forward(self, x):  # x: (B, 2, 4)
            h = self.conv(x)
            return self.fc(h.transpose(0, 1).reshape(x.shape[0], -1))

    class Pooled(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10, 4)
            self.head = nn.Linear(4, 2)

        def forward(self, tokens):
            h = self.emb(tokens).mean(1)
            return self.head(h - h.mean(0, keepdim=True))  # centring over the batch: mixes samples

    healthy = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 2)).train()
    ok = probes.batch_dependence(healthy, (torch.randn(6, 8),))
    assert ok["leak"] == 0.0 and ok["self"] > 0
    assert healthy.training and healthy[1].training  # modes restored after the probe

    mixed = probes.batch_dependence(Mixer(), (torch.randn(6, 2, 4),))
    assert mixed["leak"] > 0 and mixed["mixing_after"] == "conv" and mixed["mixing_before"] == "fc"

    tokens = probes.batch_dependence(Pooled(), (torch.randint(0, 10, (6, 5)),))
    assert tokens["leak"] > 0
    assert "skipped" in probes.batch_dependence(nn.Linear(3, 2), (torch.randn(1, 3),))
@pytest.mark.slow
def test_memory_cap_turns_a_huge_allocation_into_an_out_of_memory_entry():
    report = trace(SCRIPTS / "allocates_too_much.py", steps=20, cwd=SCRIPTS, timeout_s=120, memory_limit_mb=6000)
    assert [e.kind for e in report.errors] == ["out-of-memory"]
    assert "after step 1" in report.errors[0].message
@pytest.mark.slow
def test_scheduler_steps_are_seen_once_and_state_dicts_stay_picklable():
    report = trace(SCRIPTS / "checkpoints_scheduler.py", steps=6, cwd=SCRIPTS, timeout_s=120)
    assert report.errors == [], [e.message for e in report.errors]
    # two schedulers stepped per iteration, none reported for their constructors' initial step
    assert report.summary.stats["call_sequence"][:3] == ["FZBS", "LLFZBS", "LLFZBS"]  # windows end at step()
@pytest.mark.slow
def test_a_second_training_stage_is_followed_not_flagged():
    """A new optimizer that takes over the first one's parameters (stage 2 of a fine-tune) becomes
    the one whose steps are counted, so the trace still stops at --steps; one rebuild is not a bug."""
    report = trace(SCRIPTS / "two_stage_finetune.py", steps=12, cwd=SCRIPTS, timeout_s=120)
    assert report.errors == [], [e.message for e in report.errors]
    assert report.summary.stats["status"] == "max-steps"
    flagged = {f.rule for f in report.findings}
    assert "optimizer-rebuilt-each-step" not in flagged, flagged


IGNORE_INDEX_SCRIPT = '''
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(8, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
ignore = {ignore}
for step in range(6):
    x = torch.randn(16, 8)
    y = torch.randint(0, 4, (16,)) + {offset}
    y[:3] = ignore  # padding positions the loss must skip
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y, ignore_index=ignore)
    loss.backward()
    opt.step()
'''


@pytest.mark.slow
@pytest.mark.parametrize(
    ("ignore", "offset", "flagged"),
    [
        (-100, 0, False),  # the usual padding value lies outside the class range: labels 0..3 are fine
        (0, 0, False),  # padding id 0 inside the range, labels still within 0..3
        (0, 1, True),  # labels 1..4 for 4 classes: 4 is out of range even though 0 is ignored
    ],
)
def test_label_range_skips_ignore_index(tmp_path, ignore, offset, flagged):
    script = tmp_path / "train.py"
    script.write_text(IGNORE_INDEX_SCRIPT.format(ignore=ignore, offset=offset), encoding="utf-8")
    report = trace(script, steps=5, cwd=tmp_path, timeout_s=120)
    if not flagged:
        assert report.errors == [], [e.message for e in report.errors]
    # (an out-of-range label makes cross_entropy raise on CPU: the script's error is reported too)
    rules = {f.rule for f in report.findings}
    assert ("label-out-of-range" in rules) is flagged, rules

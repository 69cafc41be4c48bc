"""The child-side pieces that make trace understand Lightning: closure steps and the stage of a call (in-process, no Lightning run)."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

HERE = Path(__file__).resolve().parent
HARNESS = HERE.parents[2] / "server" / "mlsleuth" / "runtime" / "child"


@pytest.fixture()
def child(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(HARNESS))
    monkeypatch.setenv("MLSLEUTH_RESULT", str(tmp_path / "result.json"))
    monkeypatch.delenv("MLSLEUTH_PROGRESS", raising=False)
    import closure_steps
    import run_user_script
    import trace_observer
    import trace_stages

    return types.SimpleNamespace(closure_steps=closure_steps, run_user_script=run_user_script,
                                 trace_observer=trace_observer, trace_stages=trace_stages)


def test_a_closure_is_wrapped_and_the_step_announced_after_its_first_call(child):
    calls = []

    def closure():
        calls.append("closure")
        return 1.0

    opt = object()
    args, kwargs = child.closure_steps.defer_step_start((opt, closure), {}, lambda: calls.append("begin"))
    assert args[0] is opt and kwargs == {}
    assert args[1]() == 1.0 and args[1]() == 1.0
    assert calls == ["closure", "begin", "closure"]
    args, kwargs = child.closure_steps.defer_step_start((opt,), {"closure": closure}, lambda: calls.append("begin"))
    assert kwargs["closure"] is not closure and len(args) == 1


def test_a_step_without_closure_is_left_alone(child):
    assert child.closure_steps.defer_step_start((object(),), {}, lambda: None) is None
    assert child.closure_steps.defer_step_start((object(), None), {}, lambda: None) is None


def test_closure_steps_read_as_forward_backward_then_step_with_this_steps_gradients(child):
    obs = child.trace_observer.TraceObserver({})
    payload = child.run_user_script.run(str(HERE / "scripts" / "closure_sgd.py"), [], observers=[obs], max_steps=6, write=False)
    data = payload["observers"]["trace"]
    assert payload["status"] == "max-steps" and payload["steps"] == 6
    assert set(data["sequences"]) == {"ZFBS"}, data["sequences"]
    assert all(p["grad_none_steps"] == 0 for p in data["params"])  # the first step already sees its gradients
    assert data["stages"] is None  # no framework: the plain-script behaviour


def _fake_trainer(stage: str, status: str = "running"):
    cls = type("Trainer", (), {"__module__": "lightning.pytorch.trainer.trainer"})
    trainer = cls()
    trainer.state = types.SimpleNamespace(stage=types.SimpleNamespace(value=stage), status=types.SimpleNamespace(value=status))
    trainer.accumulate_grad_batches = 2
    trainer.gradient_clip_val = 1.0
    return trainer


def test_the_stage_is_read_from_the_running_trainer_up_the_stack(child, monkeypatch):
    if "lightning.pytorch" not in sys.modules:
        monkeypatch.setitem(sys.modules, "lightning.pytorch", types.ModuleType("lightning.pytorch"))
    tracker = child.trace_stages.StageTracker()
    assert tracker.current() is None  # no trainer on the stack

    class Loop:
        def __init__(self, trainer):
            self.trainer = trainer

        def run(self, tracker):
            self = self.trainer  # noqa: PLW0642 - a frame whose `self` is the trainer, as in Trainer._run_stage
            return tracker.current(), tracker.is_training()

    trainer = _fake_trainer("sanity_check")
    assert Loop(trainer).run(tracker) == ("sanity_check", False)
    trainer.state.stage.value = "train"
    assert tracker.current() == "train" and tracker.is_training()  # cached while the trainer runs
    trainer.state.status.value = "finished"
    assert tracker.current() is None
    result = tracker.result()
    assert result["framework"] == "lightning"
    assert result["settings"]["accumulate_grad_batches"] == 2 and result["settings"]["gradient_clip_val"] == 1.0


def test_without_lightning_loaded_nothing_is_looked_up(child, monkeypatch):
    for name in ("lightning.pytorch", "pytorch_lightning"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    tracker = child.trace_stages.StageTracker()
    assert tracker.current() is None and tracker.is_training() and tracker.result() is None

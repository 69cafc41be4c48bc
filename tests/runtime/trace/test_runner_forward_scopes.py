"""Runner.narrow_forwards: an observer past its window stops getting the module forwards it no longer reads."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

HARNESS = Path(__file__).resolve().parents[3] / "server" / "mlsleuth" / "runtime" / "child"


@pytest.fixture()
def runner_mod(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(HARNESS))
    monkeypatch.setenv("MLSLEUTH_RESULT", str(tmp_path / "result.json"))
    monkeypatch.delenv("MLSLEUTH_PROGRESS", raising=False)
    import run_user_script

    return run_user_script


SCRIPT = """
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
        self.head = nn.Linear(8, 2)
        self.loose = [nn.Linear(8, 8)]  # run inside forward, registered in no model

    def forward(self, x):
        return self.head(self.loose[0](self.body(x)))

torch.manual_seed(0)
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.MSELoss()
for step in range(6):
    opt.zero_grad()
    loss = loss_fn(model(torch.randn(3, 4)), torch.zeros(3, 2))
    loss.backward()
    opt.step()
"""


def _watcher(scope_after: str | None):
    from observer import Observer

    class Watcher(Observer):
        name = "watcher"

        def __init__(self):
            self.seen: dict[int, list[str]] = {}
            self.stacks: list[int] = []

        def on_module_forward(self, runner, module, inputs, output):
            self.seen.setdefault(runner.step, []).append(type(module).__name__)
            self.stacks.append(len(runner.module_stack))

        def on_step_end(self, runner, optimizer):
            if runner.step == 2 and scope_after is not None:
                runner.narrow_forwards(self, scope_after)

    return Watcher()


ALL = ["Linear", "ReLU", "Sequential", "Linear", "Linear", "Net", "MSELoss"]


@pytest.mark.parametrize("scope, later", [
    (None, ALL),
    ("all", ALL),
    ("unregistered", ["Linear", "Net", "MSELoss"]),  # the loose layer, the whole model, the loss module
    ("outer", ["Net", "MSELoss"]),
    ("none", []),
])
def test_narrowed_observer_gets_only_its_scope(runner_mod, tmp_path, scope, later):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    watcher = _watcher(scope)
    payload = runner_mod.run(str(script), [], observers=[watcher], max_steps=5, write=False)
    assert payload["status"] == "max-steps" and not payload["observer_errors"]
    assert watcher.seen[0] == ALL and watcher.seen[1] == ALL  # before narrowing: every forward
    assert all(watcher.seen.get(step, []) == later for step in (2, 3, 4))


def test_narrowing_leaves_the_other_observers_and_the_module_stack_alone(runner_mod, tmp_path):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    narrowed, full = _watcher("none"), _watcher(None)
    full.name = "full"
    runner_mod.run(str(script), [], observers=[narrowed, full], max_steps=5, write=False)
    assert all(full.seen[step] == ALL for step in range(5))
    assert full.stacks[:len(ALL)] == [2, 2, 1, 1, 1, 0, 0]  # inner modules see their callers on the stack


def test_unknown_scope_is_refused(runner_mod):
    runner = runner_mod.Runner([], None)
    with pytest.raises(ValueError, match="forward scope"):
        runner.narrow_forwards(object(), "inner")

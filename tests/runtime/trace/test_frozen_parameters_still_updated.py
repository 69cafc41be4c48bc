"""`frozen-parameters-still-updated` (trace): requires_grad=False parameters that optimizer.step() still moves."""

from __future__ import annotations

import pytest

from .measurements import findings_for, param, traced

CHECK = "frozen-parameters-still-updated"


def _frozen(name: str, module: str, moved: int) -> dict:
    rec = param(name, module, changed=True)
    rec.update(requires_grad=False, frozen_steps=8, frozen_moved_steps=moved, first_frozen_move=6 if moved else None)
    return rec


def test_found_for_frozen_parameters_that_moved():
    data = {"params": [_frozen("trunk.0.weight", "trunk.0", 8), _frozen("trunk.0.bias", "trunk.0", 8),
                       param("head.weight", "head")]}
    (hit,) = findings_for(CHECK, data)
    assert hit.severity == "warning" and hit.category == "training-loop" and hit.next_test and hit.fix
    assert hit.location.module == "trunk.0" and hit.location.step == 6 and "2 frozen parameter(s)" in hit.observation


def test_not_found_when_frozen_parameters_stay_put():
    assert not findings_for(CHECK, {"params": [_frozen("trunk.0.weight", "trunk.0", 0), param("head.weight", "head")]})
    assert not findings_for(CHECK, {})


@pytest.mark.slow
@pytest.mark.parametrize("variant, bug", [("momentum-keeps-moving", True), ("set-to-none", False), ("rebuilt", False),
                                          ("frozen-from-start", False)])
def test_freezing_in_a_real_script(variant: str, bug: bool):
    findings = traced("frozen_updates.py", variant, steps=20)
    assert bool([f for f in findings if f.rule == CHECK]) == bug
    # a head idle during the other stage is not "learning too slowly": its ratio counts the steps it trained in
    assert not [f for f in findings if f.rule == "update-ratio-too-small"]


def test_found_for_a_freeze_reached_after_the_traced_steps():
    """A second stage that freezes the encoder usually starts long after the traced steps; the script runs on after
    them and a few of its steps are measured there (after_frozen.py)."""
    late = [{"name": "encoder.0.weight", "module": "encoder.0", "moved_steps": 3, "optimizer": "SGD"},
            {"name": "encoder.0.bias", "module": "encoder.0", "moved_steps": 3, "optimizer": "SGD"}]
    (hit,) = findings_for(CHECK, {"params": [param("head.weight", "head")], "frozen_moved_after_window": late})
    assert hit.location.module == "encoder.0" and hit.location.step is None
    assert "after the traced steps" in hit.observation and hit.measurements["after_traced_steps"]


def test_after_window_records_reach_the_check_through_the_payload():
    from mlsleuth.runtime.trace.checks_checkpoints import merge_after_window

    payload = {"after_window": {"loads": [], "resumes": [], "frozen_steps_measured": 3,
                                "frozen_moved": [{"name": "trunk.0.weight", "module": "trunk.0", "moved_steps": 3}]}}
    data = merge_after_window(payload, {"params": [param("head.weight", "head")]})
    (hit,) = findings_for(CHECK, data)
    assert hit.location.module == "trunk.0"


@pytest.mark.slow
@pytest.mark.parametrize("variant, bug", [("momentum-keeps-moving", True), ("set-to-none", False), ("rebuilt", False)])
def test_freeze_after_the_traced_steps(variant: str, bug: bool):
    """Four traced steps: the freeze at step 6 happens while the script runs on after them."""
    hits = [f for f in traced("frozen_updates.py", variant, steps=4) if f.rule == CHECK]
    assert bool(hits) == bug
    if bug:
        assert hits[0].location.module == "trunk.0" and "after the traced steps" in hits[0].observation


def test_the_after_window_watch_measures_each_new_freeze():
    """A part frozen from the start (never moved) does not use up the measurement a later, leaky freeze needs."""
    import sys
    from pathlib import Path
    from types import SimpleNamespace

    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "server" / "mlsleuth" / "runtime" / "child"))
    from after_frozen import FrozenStepWatch

    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 4), torch.nn.Linear(4, 2))
    model[0].requires_grad_(False)  # frozen from the start: no gradient, never moved
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-2)
    runner = SimpleNamespace(roots=[model], root_prefix=lambda root, multi: "")
    watch = FrozenStepWatch()
    watch.begin(runner)

    def step():
        opt.zero_grad(set_to_none=False)
        model(torch.randn(8, 4)).sum().backward()
        watch.before_step(opt)
        opt.step()
        watch.after_step(opt)

    for _ in range(10):
        step()
    assert watch.measured == 3 and not watch.moved
    model[1].requires_grad_(False)  # a second stage freezes more, leaving zero gradients and momentum behind
    for _ in range(20):
        step()
    assert {r["name"] for r in watch.moved.values()} == {"1.weight", "1.bias"}
    assert watch.measured == 6 and all(r["moved_steps"] == 3 for r in watch.moved.values())

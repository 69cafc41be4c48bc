"""`parameter-generator-reused` (trace): a model.parameters() generator iterated again after it was used up."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "parameter-generator-reused"
SCRIPT = "param_iters.py"


def _reuse(**kw) -> dict:
    rec = {"kind": "parameters", "created_path": "/x/utils.py", "created_line": 65, "used_up_path": "/x/utils.py",
           "used_up_line": 42, "yielded": 6, "path": "/x/utils.py", "line": 46, "events": 20, "steps": list(range(20))}
    rec.update(kw)
    return rec


def test_found_on_measurements():
    (hit,) = findings_for(CHECK, {"generic": {"reused_parameter_iterators": [_reuse()]}, "script_dir": "/x"})
    assert hit.severity == "warning" and hit.category == "training-loop"
    assert hit.location.line == 46 and hit.location.path.endswith("utils.py")
    assert "utils.py:65" in hit.message and "utils.py:42" in hit.message and "utils.py:46" in hit.message


def test_not_found_once_or_for_an_empty_module():
    assert not findings_for(CHECK, {"generic": {"reused_parameter_iterators": [_reuse(events=1, steps=[0])]}})  # set-up, once
    assert not findings_for(CHECK, {"generic": {"reused_parameter_iterators": [_reuse(yielded=0)]}})  # nothing to lose
    assert not findings_for(CHECK, {})


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["helper-twice", "ema-generator"])
def test_reused_generators_found(variant: str):
    (hit,) = [f for f in traced(SCRIPT, variant) if f.rule == CHECK]
    assert hit.location.path.endswith(SCRIPT) and hit.location.line


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["helper-list", "fresh", "ema-fresh", "stored-generator"])
def test_not_found_for_fresh_generators_or_a_clip(variant: str):
    """'stored-generator' is the clip's finding (clip-grad-clips-nothing), not a second one here."""
    assert not [f for f in traced(SCRIPT, variant) if f.rule == CHECK]


def test_a_clip_given_the_used_up_generator_is_reported_once():
    """A library that lists the parameters before calling torch's clip asks the used-up generator for more at the
    user's clip line: the clip's finding covers it."""
    clip = {"function": "clip_grad_norm_", "path": "/x/utils.py", "line": 46, "calls": 20, "with_grad": 0, "empty": 20,
            "gradless": 0, "frozen_only": 0, "steps": list(range(20)), "given": 0, "others_with_grad": 6}
    data = {"generic": {"reused_parameter_iterators": [_reuse()], "clip_calls": [clip]}}
    assert not findings_for(CHECK, data)
    assert findings_for("clip-grad-clips-nothing", data)


def _child_watch():
    """The child's watch with a stand-in runner (the child's modules import as siblings)."""
    import sys
    from pathlib import Path
    from types import SimpleNamespace

    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "server" / "mlsleuth" / "runtime" / "child"))
    import trace_param_iters

    runner = SimpleNamespace(_muted=0, step=0, optimizers=[], roots=[], record_error=lambda *a: None)
    watch = trace_param_iters.ParamIterWatch(lambda path: path == __file__)
    return trace_param_iters, watch, runner


def test_the_watched_generator_behaves_as_the_generator_it_wraps():
    import inspect
    import types

    torch = pytest.importorskip("torch")
    mod, watch, runner = _child_watch()
    model = torch.nn.Linear(3, 2)
    (_owner, _name, factory), *_ = watch.patches()
    parameters = factory(runner, torch.nn.Module.parameters)
    params = parameters(model)  # called from this file: the user's code here
    assert type(params) is mod.WatchedParams
    assert isinstance(params, types.GeneratorType) and inspect.isgenerator(params)
    assert [p.shape for p in params] == [p.shape for p in model.parameters()]
    for step in (1, 2):  # used up, as a generator would be; each later pass is recorded
        runner.step = step
        assert list(params) == []
    (rec,) = watch.result()["reused_parameter_iterators"]
    assert rec["yielded"] == 2 and rec["steps"] == [1, 2] and rec["created_line"] and rec["line"]


def test_the_clip_wrapper_hands_on_what_it_was_given():
    import types

    torch = pytest.importorskip("torch")
    _mod, watch, runner = _child_watch()
    model = torch.nn.Linear(3, 2)
    model(torch.randn(4, 3)).sum().backward()
    runner.optimizers = [torch.optim.SGD(model.parameters(), lr=0.1)]
    seen = []

    def original(parameters, max_norm, **kwargs):
        seen.append(type(parameters))
        return torch.nn.utils.clip_grad_norm_(parameters, max_norm, **kwargs)

    clip = watch._wrap_clip("clip_grad_norm_")(runner, original)
    assert float(clip(model.parameters(), 1e-3)) > 0  # a plain generator stays a generator, and is clipped
    assert seen[-1] is types.GeneratorType
    clip(parameters=[p for p in model.parameters()], max_norm=1.0)
    assert seen[-1] is list
    for step in (1, 2):
        runner.step = step
        clip(iter(()), 1.0)
    (rec,) = [r for r in watch.result()["clip_calls"] if r["empty"]]
    assert rec["empty"] == 2 and rec["steps"] == [1, 2] and rec["others_with_grad"] == 2

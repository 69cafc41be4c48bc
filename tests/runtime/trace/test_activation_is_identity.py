"""`activation-is-identity` (trace): a leaky_relu / rrelu / prelu whose output equals its input despite negative inputs."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "activation-is-identity"
SCRIPT = "identity_activations.py"


def _site(**kw) -> dict:
    rec = {"function": "leaky_relu", "module": "encoder.blocks.0.act", "module_type": "LeakyReLU", "module_call": True,
           "path": "/x/layers.py", "line": 15, "calls": 5, "identity": 5, "without_negatives": 0, "steps": [0, 1, 2, 3, 4],
           "negative_share": 0.5, "negative_slope": "True"}
    rec.update(kw)
    return rec


def test_found_on_measurements():
    sites = [_site(), _site(module="encoder.blocks.1.act", line=15)]
    (hit,) = findings_for(CHECK, {"generic": {"identity_activations": sites}, "script_dir": "/x"})
    assert hit.severity == "warning" and hit.category == "architecture"
    assert hit.location.module == "encoder.blocks.0.act" and hit.location.line == 15 and hit.location.path.endswith("layers.py")
    assert "negative_slope=True, i.e. 1" in hit.message and "1 more call site" in hit.observation


def test_functional_call_and_prelu_are_described():
    site = _site(function="leaky_relu", module="", module_type="Net", module_call=False, negative_slope=1.0, line=40)
    (hit,) = findings_for(CHECK, {"generic": {"identity_activations": [site]}})
    assert hit.message.startswith("F.leaky_relu") and hit.location.module is None and hit.location.line == 40
    site = _site(function="prelu", module_type="PReLU", weight_range=[1.0, 1.0])
    (hit,) = findings_for(CHECK, {"generic": {"identity_activations": [site]}})
    assert "(PReLU)" in hit.message and "weight 1" in hit.message


def test_not_found_without_records():
    assert not findings_for(CHECK, {"generic": {"identity_activations": []}})
    assert not findings_for(CHECK, {})


@pytest.mark.slow
@pytest.mark.parametrize("variant, module", [("leaky-true", "blocks.0.act"), ("functional-true", None),
                                             ("prelu-stuck", "blocks.0.act"), ("rrelu-one", "blocks.0.act")])
def test_identity_activations_found(variant: str, module: str | None):
    (hit,) = [f for f in traced(SCRIPT, variant) if f.rule == CHECK]
    assert hit.location.module == module and hit.location.path.endswith(SCRIPT)


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["leaky-inplace", "relu-inplace", "leaky-default", "prelu-learns", "positive-inputs",
                                     "identity-module"])
def test_healthy_activations_not_found(variant: str):
    assert not [f for f in traced(SCRIPT, variant) if f.rule == CHECK]

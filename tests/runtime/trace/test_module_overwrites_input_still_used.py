"""`module-overwrites-input-still-used` (trace): a module overwrote a tensor it was given; the caller read it again."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "module-overwrites-input-still-used"


def _data(*records):
    return {"generic": {"inplace": {"overwritten_inputs": list(records), "count": len(records)}}}


def _rec(module="blocks.0.body", **over):
    return {"module": module, "type": "Sequential", "caller": "blocks.0", "shape": [32, 16], "dtype": "float32",
            "requires_grad": True, "model_input": False, "step": 0, "order": 0,
            "read": {"op": "__iadd__", "path": "/tmp/x/model.py", "line": 25, "module": "blocks.0"}, **over}


def test_found_on_measurements():
    (hit,) = findings_for(CHECK, _data(_rec(), _rec("blocks.1.body", order=1)))
    assert hit.location.module == "blocks.0.body" and hit.severity == "warning" and hit.location.step == 0
    assert "blocks.1.body" in hit.observation and "__iadd__" in hit.observation and hit.next_test


def test_not_found_without_overwritten_inputs():
    assert not findings_for(CHECK, _data())
    assert not findings_for(CHECK, {"generic": None})
    assert not findings_for(CHECK, {})


SCRIPT = "inplace_inputs.py"


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "module"), [("skip", "blocks.0.body"), ("scale", "blocks.0.rescale"), ("target", "norm")])
def test_overwritten_inputs_found(variant, module):
    hits = [f for f in traced(SCRIPT, variant, steps=3) if f.rule == CHECK]
    assert [h.location.module for h in hits] == [module]


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["skip-fixed", "post-act", "alias", "target-fixed"])
def test_clean_look_alikes_silent(variant):
    # post-act: nn.ReLU(inplace=True) on fresh intermediates (torchvision's ResNet); alias: the module hands back the
    # very tensor it overwrote, so later reads are reads of its output
    assert not [f for f in traced(SCRIPT, variant, steps=3) if f.rule == CHECK]

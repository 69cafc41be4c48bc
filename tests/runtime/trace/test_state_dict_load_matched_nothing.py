"""`state-dict-load-matched-nothing` (trace): load_state_dict(strict=False) that loads nothing."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "state-dict-load-matched-nothing"


def _load(missing, unexpected):
    return {"state_dict_loads": [{"module": "Net", "model_keys": 4, "given_keys": 4, "missing": missing, "unexpected": unexpected,
                                  "missing_examples": ["0.weight"], "unexpected_examples": ["model.0.weight"], "step": 0}]}


def test_found_on_measurements():
    (hit,) = findings_for(CHECK, _load(4, 4))
    assert hit.severity == "error" and "4 of its 4 keys" in hit.message


def test_not_found_when_only_a_replaced_head_is_skipped():
    assert not findings_for(CHECK, _load(1, 1))  # strict=False to skip a new classifier head: the rest loaded
    assert not findings_for(CHECK, _load(0, 0))


@pytest.mark.slow
def test_prefixed_checkpoint_found_stripped_not():
    assert [f for f in traced("load_prefix.py", "prefixed") if f.rule == CHECK]
    assert not [f for f in traced("load_prefix.py", "stripped") if f.rule == CHECK]

"""`exp-near-overflow` (trace): an exp in the training graph receives inputs near the float32 overflow."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "exp-near-overflow"


def _site(per_step):
    return {"numerics": [{"kind": "exp", "function": "exp", "path": "/x/model.py", "line": 7, "module": "attn", "calls": 3,
                          "dtype": "float32", "limit": 88.72, "max_input": max(v for _, v in per_step), "per_step": per_step}],
            "script_dir": "/x"}


def test_found_near_the_limit():
    (hit,) = findings_for(CHECK, _site([[0, 30.0], [1, 62.0], [2, 84.0]]))
    assert hit.location.step == 2 and hit.location.module == "attn"


def test_not_found_for_moderate_inputs():
    assert not findings_for(CHECK, _site([[s, 12.0] for s in range(20)]))


@pytest.mark.slow
def test_naive_softmax_found_stable_not():
    assert [f for f in traced("numerics.py", "naive-softmax") if f.rule == CHECK]
    assert not [f for f in traced("numerics.py", "stable-softmax") if f.rule == CHECK]

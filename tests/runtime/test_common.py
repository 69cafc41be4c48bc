"""Helpers shared by the runtime tools."""

from __future__ import annotations

import math

from mlsleuth.runtime.common import decode_non_finite


def test_the_childs_non_finite_strings_become_floats_but_names_stay_text():
    decoded = decode_non_finite({"leak": "nan", "ratios": ["inf", 1.0, "-inf"], "name": "nan", "module": "inf",
                                 "nested": [{"value": "nan", "op": "aten::nan_to_num"}], "note": "nanosecond"})
    assert math.isnan(decoded["leak"]) and decoded["ratios"][0] == math.inf and decoded["ratios"][2] == -math.inf
    assert decoded["name"] == "nan" and decoded["module"] == "inf" and decoded["note"] == "nanosecond"
    assert math.isnan(decoded["nested"][0]["value"]) and decoded["nested"][0]["op"] == "aten::nan_to_num"

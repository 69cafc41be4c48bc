"""docs/evidence/trigger_cases.json: requests for evaluating when the skill should load.

The file is for running against a real agent; these tests keep it well formed
and keep the two lists from overlapping or drifting away from the description.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "docs" / "evidence" / "trigger_cases.json"


def load():
    return json.loads(CASES.read_text(encoding="utf-8"))


def test_shape_and_size():
    data = load()
    assert set(data) == {"about", "should_trigger", "should_not_trigger"}
    for key in ("should_trigger", "should_not_trigger"):
        cases = data[key]
        assert len(cases) >= 20, f"{key}: need at least 20 cases"
        assert all(isinstance(c, str) and 15 <= len(c) <= 300 for c in cases), key
        assert len({c.strip().lower() for c in cases}) == len(cases), f"{key}: duplicates"


def test_lists_do_not_overlap():
    data = load()
    assert not {c.lower() for c in data["should_trigger"]} & {c.lower() for c in data["should_not_trigger"]}


def test_positive_cases_cover_the_symptoms_the_description_names():
    text = " ".join(load()["should_trigger"]).lower()
    for symptom in ("nan", "not decreasing", "2.302", "diverges", "validation", "seed", "sweep",
                    "audit", "ppo", "physics-informed", "stuck"):
        assert symptom in text, f"no trigger case for {symptom!r}"


def test_near_misses_are_ml_adjacent_not_only_unrelated():
    misses = " ".join(load()["should_not_trigger"]).lower()
    for topic in ("pytorch", "model", "tokenizer", "checkpoint"):
        assert topic in misses, f"near misses should include ordinary {topic} work"

"""Free-text symptoms read as catalog categories; every id the table names exists."""

from __future__ import annotations

import pytest
from mlsleuth.catalog import load_all
from mlsleuth.report import CATEGORIES
from mlsleuth.triage import symptoms
from mlsleuth.triage.symptoms import read_symptom, relevance


@pytest.mark.parametrize(("text", "first"), [
    ("loss stuck at 2.3", "loss stuck or not learning"),
    ("the loss does not decrease", "loss stuck or not learning"),
    ("NaN after 300 steps", "loss goes non-finite or explodes"),
    ("val accuracy much lower than train", "evaluation differs from training"),
    ("results differ run to run with the same seed", "results do not reproduce"),
])
def test_common_symptoms_are_read(text: str, first: str) -> None:
    assert read_symptom(text)[0].name == first


def test_no_text_or_unknown_text_reads_as_nothing() -> None:
    assert read_symptom(None) == [] and read_symptom("  ") == []
    assert read_symptom("the colour of the plot is ugly") == []


def test_every_category_and_id_in_the_table_exists() -> None:
    ids = set(load_all())
    for _pattern, reading in symptoms._READINGS:  # noqa: SLF001 - the table itself is under test
        assert set(reading.categories) <= set(CATEGORIES), reading.name
        assert set(reading.rules) <= ids, (reading.name, sorted(set(reading.rules) - ids))


def test_relevance_prefers_a_named_id_over_a_category() -> None:
    stuck = read_symptom("loss stuck")
    assert relevance(stuck, ("softmax-into-logit-loss",), "loss") == 2
    assert relevance(stuck, ("some-other-rule",), "data") == 1
    assert relevance(stuck, ("some-other-rule",), "reproducibility") == 0

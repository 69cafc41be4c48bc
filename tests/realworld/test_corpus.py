"""The real-world corpus keeps its format, its counts and its seeded split."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import corpus
import split

CASES = corpus.load_corpus()
# Words a real author would not leave next to a bug they did not know about.
HINT = re.compile(r"#.*\b(bug|buggy|wrong|fixed|mistake|incorrect|oops|should be)\b", re.IGNORECASE)


def test_counts_reach_the_issue_minimum():
    kinds = [c.kind for c in CASES]
    assert kinds.count("static") >= 150, f"{kinds.count('static')} static cases"
    assert kinds.count("runnable") >= 40, f"{kinds.count('runnable')} runnable cases"


def test_every_category_is_covered():
    assert {c.category for c in CASES} == set(corpus.CATEGORIES)


def test_cases_sit_in_their_seeded_split():
    assert split.misplaced() == []


def test_split_manifest_is_current():
    manifest = split.load_manifest()
    assert sorted(manifest["dev"]) == sorted(c.id for c in CASES if c.split == "dev")
    assert sorted(manifest["test"]) == sorted(c.id for c in CASES if c.split == "test")
    assert set(manifest.get("moved_to_dev", {})) <= set(manifest["dev"])


def test_split_is_roughly_sixty_forty():
    dev = sum(c.split == "dev" for c in CASES)
    assert 0.5 <= dev / len(CASES) <= 0.7


def test_hashed_split_depends_on_the_id_alone():
    assert split.hashed_split("loss-example") == split.hashed_split("loss-example")
    shares = [split.hashed_split(f"case-{i}") for i in range(2000)]
    assert 0.56 < shares.count("dev") / len(shares) < 0.64


def test_ids_are_unique_across_splits():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_no_comment_points_at_the_bug(case):
    for variant in ("buggy", "fixed"):
        for name in corpus.source_files(case.path / variant):
            for number, line in enumerate(corpus.code_lines(case.path / variant / name), start=1):
                assert not HINT.search(line), f"{variant}/{name}:{number}: {line.strip()}"


def test_loader_rejects_a_malformed_case(tmp_path):
    folder = tmp_path / "loss-broken"
    (folder / "buggy").mkdir(parents=True)
    (folder / "fixed").mkdir()
    (folder / "buggy" / "train.py").write_text("x = 1\n")
    (folder / "fixed" / "train.py").write_text("x = 1\n")
    (folder / "case.json").write_text('{"id": "loss-broken"}')
    with pytest.raises(corpus.CaseError, match="missing field"):
        corpus.load_case(folder, "dev")


def test_notebook_positions_map_joined_lines_to_cells(tmp_path):
    nb = tmp_path / "a.ipynb"
    nb.write_text(
        '{"cells": [{"cell_type": "markdown", "source": ["# t"]},'
        ' {"cell_type": "code", "source": ["a = 1\\n", "b = 2"]},'
        ' {"cell_type": "code", "source": ["c = 3\\n"]}], "nbformat": 4, "nbformat_minor": 5, "metadata": {}}'
    )
    assert corpus.code_lines(nb) == ["a = 1", "b = 2", "c = 3"]
    assert corpus.notebook_position(nb, 3) == (3, 1)
    assert corpus.notebook_position(nb, 2) == (2, 2)


def test_no_public_report_backs_more_than_three_cases():
    uses = Counter(c.source["url"] for c in CASES)
    assert not [url for url, n in uses.items() if n > 3]

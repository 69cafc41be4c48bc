"""The README's detection claims are the benchmark's last written results, not typed by hand."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_realworld as bench

RESULTS = ROOT / "docs" / "evidence" / "realworld" / "results.json"


def test_readme_block_matches_the_recorded_results():
    if not RESULTS.is_file():
        pytest.fail("docs/evidence/realworld/results.json is missing: run python benchmarks/bench_realworld.py --write")
    summary = json.loads(RESULTS.read_text(encoding="utf-8"))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert bench.render_readme_block(summary) in readme


def test_results_cover_both_tools_on_both_splits():
    summary = json.loads(RESULTS.read_text(encoding="utf-8"))
    assert set(summary["table"]) == {"scan/dev", "scan/test", "trace/dev", "trace/test"}
    assert summary["clean_verdicts"]["unreviewed"] == 0

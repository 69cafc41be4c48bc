"""benchmarks/bench_realworld.py keeps working: its scoring on hand-made findings, and a run over ten dev cases."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(ROOT / "benchmarks")]

import bench_realworld as bench
import corpus


def make_case(tmp_path: Path, *, notebook: bool = False, culprit: str | None = None) -> corpus.Case:
    folder = tmp_path / "loss-made-up"
    for variant in ("buggy", "fixed", "lookalike"):
        (folder / variant).mkdir(parents=True)
    if notebook:
        nb = {"cells": [{"cell_type": "markdown", "source": ["# notes"]},
                        {"cell_type": "code", "source": ["import torch\n", "x = 1\n"]},
                        {"cell_type": "code", "source": ["a = 1\n", "b = 2\n", "c = 3\n"]}],
              "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
        for variant in ("buggy", "lookalike"):
            (folder / variant / "nb.ipynb").write_text(json.dumps(nb))
        nb["cells"][2]["source"][1] = "b = 20\n"
        (folder / "fixed" / "nb.ipynb").write_text(json.dumps(nb))
        bug = {"file": "nb.ipynb", "line": 4, "cell": 1}
    else:
        body = "".join(f"v{i} = {i}\n" for i in range(1, 21))
        (folder / "buggy" / "train.py").write_text(body)
        (folder / "fixed" / "train.py").write_text(body.replace("v10 = 10", "v10 = 11"))
        (folder / "lookalike" / "train.py").write_text(body)
        bug = {"file": "train.py", "line": 10}
    meta = {"id": "loss-made-up", "kind": "runnable" if culprit else "static", "category": "loss", "family": "f",
            "description": "d", "source": {"url": "https://example.org/x", "type": "forum"}, "frameworks": ["torch"],
            "bug_lines": [bug], "lookalikes": [{"dir": "lookalike", "why": "w"}],
            "runtime": {"entry": "train.py", "culprit_module": culprit} if culprit else None}
    (folder / "case.json").write_text(json.dumps(meta))
    return corpus.load_case(folder, "dev")


def finding(rule="r", severity="warning", category="loss", **loc):
    return {"rule": rule, "severity": severity, "category": category, "location": loc}


def result(case, variant, tool, findings):
    return bench.VariantResult(case.id, variant, tool, findings=findings)


def test_a_finding_within_two_lines_is_a_hit_and_three_lines_away_is_not(tmp_path):
    case = make_case(tmp_path)
    near = result(case, "buggy", "scan", [finding(path="./train.py", line=12)])
    far = result(case, "buggy", "scan", [finding(path="train.py", line=13)])
    other_file = result(case, "buggy", "scan", [finding(path="model.py", line=10)])
    assert bench.judge(case, "scan", near, []).how == "line"
    assert not bench.judge(case, "scan", far, []).hit
    assert not bench.judge(case, "scan", other_file, []).hit


def test_notebook_hits_compare_cell_and_line_within_the_cell(tmp_path):
    case = make_case(tmp_path, notebook=True)
    # joined line 4 is the second line of the second code cell, which is cell 3 of the notebook
    assert bench.judge(case, "scan", result(case, "buggy", "scan", [finding(path="nb.ipynb", cell=3, line=2)]), []).hit
    assert not bench.judge(case, "scan", result(case, "buggy", "scan", [finding(path="nb.ipynb", cell=2, line=2)]), []).hit


def test_trace_hits_by_module_and_by_category_only_without_a_culprit(tmp_path):
    with_culprit = make_case(tmp_path / "a", culprit="encoder.proj")
    inside = result(with_culprit, "buggy", "trace", [finding(module="encoder.proj.0")])
    parent = result(with_culprit, "buggy", "trace", [finding(module="encoder")])
    by_param = result(with_culprit, "buggy", "trace", [finding(parameter="encoder.proj.weight")])
    category_only = result(with_culprit, "buggy", "trace", [finding(category="loss")])
    assert bench.judge(with_culprit, "trace", inside, []).how == "module"
    assert not bench.judge(with_culprit, "trace", parent, []).hit
    assert bench.judge(with_culprit, "trace", by_param, []).hit
    assert not bench.judge(with_culprit, "trace", category_only, []).hit
    no_culprit = make_case(tmp_path / "b", culprit=None)
    no_culprit.runtime = {"entry": "train.py", "culprit_module": None}
    assert bench.judge(no_culprit, "trace", result(no_culprit, "buggy", "trace", [finding(category="loss")]), []).how == "category"
    assert not bench.judge(no_culprit, "trace", result(no_culprit, "buggy", "trace", [finding(category="data")]), []).hit


def test_false_alarms_are_counted_per_clean_variant(tmp_path):
    case = make_case(tmp_path)
    outcome = bench.judge(case, "scan", result(case, "buggy", "scan", []), [
        result(case, "fixed", "scan", []), result(case, "lookalike", "scan", [finding(rule="some-rule")])])
    assert outcome.false_alarms == {"lookalike": ["some-rule"]}
    table = bench.summarise([outcome], [result(case, "fixed", "scan", []),
                                        result(case, "lookalike", "scan", [finding(rule="some-rule")])])
    row = table["scan/dev"]
    assert (row["fixed_flagged"], row["lookalike_flagged"], row["misses"]) == (0, 1, ["loss-made-up"])


@pytest.mark.slow
def test_scan_runs_end_to_end_on_ten_dev_cases():
    cases = corpus.load_split("dev")[:10]
    if len(cases) < 10:
        pytest.skip("the corpus has fewer than ten dev cases")
    outcomes, results = bench.run_corpus(cases, ["scan"], workers=2, steps=5, timeout=60, progress=False)
    assert len(outcomes) == 10
    assert all(r.error is None for r in results), [(r.case, r.variant, r.error) for r in results if r.error]
    table = bench.summarise(outcomes, results)
    assert table["scan/dev"]["cases"] == 10


@pytest.mark.slow
def test_trace_runs_end_to_end_on_a_runnable_dev_case():
    runnable = [c for c in corpus.load_split("dev") if c.kind == "runnable"][:1]
    if not runnable:
        pytest.skip("the corpus has no runnable dev case")
    outcomes, results = bench.run_corpus(runnable, ["trace"], workers=2, steps=5, timeout=90, progress=False)
    assert [o.tool for o in outcomes] == ["trace"]
    assert all(r.error is None for r in results), [(r.variant, r.error) for r in results if r.error]


def test_check_is_scored_like_trace_and_its_first_clue_is_what_counts(tmp_path, capsys):
    case = make_case(tmp_path / "c", culprit="encoder.proj")
    first_wrong = result(case, "buggy", "check", [finding(module="head"), finding(module="encoder.proj")])
    first_right = result(case, "buggy", "check", [finding(module="encoder.proj"), finding(module="head")])
    late = bench.judge(case, "check", first_wrong, [])
    early = bench.judge(case, "check", first_right, [])
    assert late.hit and not late.first_decisive
    assert early.hit and early.first_decisive and early.how == "module"
    bench.print_check_first_clue([late])
    assert "first clue decisive in 0/1" in capsys.readouterr().out

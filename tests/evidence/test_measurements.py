"""The evidence tables behind the handbook's numbers regenerate, and say what the handbook says.

Each script in docs/evidence/measurements/ is rerun (CPU, one thread, seconds)
and its fresh table is compared cell by cell with the committed page. Numbers
are seeded; the tolerance only absorbs last-digit differences between BLAS
builds. A second set of tests pins the specific claims the skill makes from
those tables, so the prose cannot outlive the evidence.
"""

from __future__ import annotations

import importlib.util
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MEASUREMENTS = ROOT / "docs" / "evidence" / "measurements"
SCRIPTS = sorted(p for p in MEASUREMENTS.glob("*.py") if not p.name.startswith("_"))


def table_module():
    spec = importlib.util.spec_from_file_location("_evidence_table", MEASUREMENTS / "_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def as_number(cell: str) -> float | None:
    try:
        return float(cell)
    except ValueError:
        return None


def committed(name: str) -> list[list[str]]:
    return table_module().parse_table((MEASUREMENTS / f"{name}.md").read_text(encoding="utf-8"))


def column(rows: list[list[str]], title: str) -> list[str]:
    header = rows[0]
    index = header.index(title)
    return [r[index] for r in rows[1:]]


def test_every_script_has_a_committed_table_and_vice_versa():
    assert {p.stem for p in SCRIPTS} == {p.stem for p in MEASUREMENTS.glob("*.md")}
    assert len(SCRIPTS) >= 4


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_table_regenerates(script):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    parse = table_module().parse_table
    fresh, old = parse(run.stdout), committed(script.stem)
    assert fresh[0] == old[0], "the header changed: rerun the script with --write and review the diff"
    assert len(fresh) == len(old), "the number of rows changed: rerun with --write"
    for r, (new_row, old_row) in enumerate(zip(fresh[1:], old[1:]), 1):
        for title, new, was in zip(old[0], new_row, old_row):
            a, b = as_number(new), as_number(was)
            if a is None or b is None:
                assert new == was, f"row {r}, {title}: {new!r} != committed {was!r}"
            else:
                assert math.isclose(a, b, rel_tol=2e-3, abs_tol=1e-6), f"row {r}, {title}: {a} vs committed {b}"


def test_table_parser_rejects_pages_without_markers():
    with pytest.raises(ValueError, match="markers"):
        table_module().parse_table("| a |\n|---|\n| 1 |\n")


# --------------------------------------------------------------------------- the claims the skill makes

def test_claim_double_softmax_shrinks_gradient_about_c_fold():
    rows = committed("softmax_ce_gradient")
    for c, std, shrink, floor in zip(column(rows, "classes C"), column(rows, "logit std"),
                                     column(rows, "shrink (x smaller)"), column(rows, "CE(softmax) loss floor")):
        c, shrink = int(c), float(shrink)
        assert shrink >= 0.9 * c, "refs say the gradient is about C times smaller or worse"
        assert math.isclose(float(floor), math.log(1 + (c - 1) / math.e), rel_tol=1e-3)
        if c == 10:
            assert math.isclose(float(floor), 1.46, abs_tol=0.01)


def test_claim_fresh_classifier_starts_near_ln_c():
    rows = committed("initial_loss_ln_c")
    classes = [int(c) for c in column(rows, "classes C")]
    fresh = [float(x) for x in column(rows, "ratio to ln C")[: len(classes)]]
    header = rows[0]
    hot_index = len(header) - 1  # the second "ratio to ln C" column: output layer x30
    hot = [float(r[hot_index]) for r in rows[1:]]
    for c, ratio, hot_ratio in zip(classes, fresh, hot):
        assert 1.0 <= ratio <= (1.04 if c == 2 else 1.013), f"C={c}: fresh ratio {ratio}"
        assert 2.8 <= hot_ratio <= 5.4, f"C={c}: over-scaled ratio {hot_ratio}"


def test_claim_constant_init_leaves_one_unit_and_dropout_breaks_it():
    rows = committed("zero_init_symmetry")
    header = rows[0]
    distinct = next(h for h in header if h.startswith("distinct hidden units"))
    for row in rows[1:]:
        cells = dict(zip(header, row))
        symmetric = cells["initialisation"] != "default" and cells["dropout"] == "0"
        assert (int(cells[distinct]) == 1) == symmetric, row
        if cells["initialisation"] == "default":
            assert float(cells["train accuracy"]) == 1.0
        if cells["initialisation"] == "zeros":
            assert cells["train accuracy"] == cells["majority-class rate"]


def test_claim_seed_noise_rates():
    rows = committed("seed_significance")
    header = rows[0]
    for row in rows[1:]:
        cells = dict(zip(header, row))
        rate = float(cells["rate p < 0.05"])
        family = float(cells["P(>=1 of 10 comparisons p < 0.05)"])
        gap = float(cells["median gap between group means"])
        if cells["what the t-test is given"] == "one mean per seed":
            assert 0.015 <= rate <= 0.05, "refs: about 4% or fewer with one mean per seed"
            assert 0.14 <= family <= 0.35
            assert 4 <= gap <= 11.5
        else:
            assert 0.42 <= rate <= 0.59, "refs: 43 to 58% when episodes are pooled"


def test_claim_overfit_test_separates_healthy_from_broken():
    rows = committed("overfit_one_batch")
    header = rows[0]
    final = next(h for h in header if h.startswith("loss after"))
    passes = next(h for h in header if h.startswith("passes"))
    table = {r[0]: dict(zip(header, r)) for r in rows[1:]}
    assert table["healthy"][passes] == "yes" and float(table["healthy"][final]) < 1e-4
    assert math.isclose(float(table["softmax fed to cross-entropy"][final]), 1.461, abs_tol=0.002)
    assert math.isclose(float(table["zero_grad between backward and step"][final]), 2.31, abs_tol=0.01)
    assert float(table["dead ReLU layer (bias -10)"][final]) > 2.1
    frozen = float(table["first layer frozen"][final])
    assert 0.01 < frozen < 0.1, "refs: the frozen first layer nearly memorises (about 0.056)"
    assert [name for name, row in table.items() if row[passes] == "yes"] == ["healthy"]


def test_evidence_readme_lists_every_measurement():
    readme = (ROOT / "docs" / "evidence" / "README.md").read_text(encoding="utf-8")
    for script in SCRIPTS:
        assert f"measurements/{script.name}" in readme, f"docs/evidence/README.md does not describe {script.name}"


def test_claim_train_mode_validation_is_worse_batch_dependent_and_random():
    rows = committed("eval_mode")
    header = rows[0]
    table = {(r[0], int(r[1])): dict(zip(header, r)) for r in rows[1:]}
    good, small_good = table[("eval()", 256)], table[("eval()", 4)]
    assert good["val loss"] == small_good["val loss"] == "0.1668"
    assert float(good["max change between two passes"]) == 0.0
    bad, small_bad = table[("train()", 256)], table[("train()", 4)]
    assert math.isclose(float(bad["val loss"]), 0.256, abs_tol=0.001)
    assert math.isclose(float(small_bad["val loss"]), 1.29, abs_tol=0.01)
    assert float(bad["max change between two passes"]) > 1 and float(small_bad["max change between two passes"]) > 1

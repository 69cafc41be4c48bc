"""compare_sweep: verdicts, divergence and unpaired handling, trends, grouping, the z-score recipe, plots."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from mlsleuth.report import Report
from mlsleuth.sweep import compare_sweep
from mlsleuth.sweep.ingest import SweepInputError

DATA = Path(__file__).parent / "data"
VERDICTS = {"sweep-reliably-better", "sweep-reliably-worse", "sweep-no-reliable-difference", "sweep-under-powered"}


def sweep_rows(values, seeds, fn):
    return [{"lr": v, "seed": s, "acc": fn(v, s)} for v in values for s in seeds]


def verdicts(report):
    return {f.measurements["value"]: f.rule for f in report.findings if f.rule in VERDICTS}


def rules(report):
    return [f.rule for f in report.findings]


def seed_noise(s):
    # large, deterministic seed-to-seed differences shared by every value
    return [0.31, -0.52, 0.08, 0.77, -0.19, -0.66, 0.44, 0.02, -0.35, 0.58, -0.12, 0.25][s]


def small_noise(v, s):
    return 0.004 * math.sin(17 * s + 100 * v)


def test_consistent_small_gain_is_reliably_better_with_hand_checked_numbers():
    rows = sweep_rows([0.001, 0.01], range(8), lambda v, s: 0.7 + 0.1 * seed_noise(s) + (0.01 if v == 0.01 else 0) + small_noise(v, s))
    rep = compare_sweep(rows, param="lr", metric="acc", seed="seed", baseline="0.001")
    f = next(f for f in rep.findings if f.rule == "sweep-reliably-better")
    d = np.array([rows[8 + s]["acc"] - rows[s]["acc"] for s in range(8)])
    m = f.measurements
    assert m["value"] == "0.01" and m["baseline"] == "0.001" and m["n_paired"] == 8
    assert m["mean_diff"] == pytest.approx(d.mean())
    assert m["d_z"] == pytest.approx(d.mean() / d.std(ddof=1))
    assert m["improved"] == int((d > 0).sum())
    assert m["p_exact"] == pytest.approx(2 / 256)  # every seed improved
    assert m["p_holm"] == pytest.approx(m["p_t"])  # one comparison
    assert rep.summary.stats["verdict_counts"]["reliably-better"] == 1
    Report.model_validate_json(rep.model_dump_json())  # JSON round trip in the shared schema


def test_lucky_seed_is_not_reliably_better():
    # Naive "best run wins" would pick lr=0.01 (its seed 3 is far ahead) but seed by seed it is a coin flip.
    def acc(v, s):
        bump = {0: 0.01, 1: -0.012, 2: 0.008, 3: 0.09, 4: -0.011, 5: -0.009}[s] if v == 0.01 else 0.0
        return 0.7 + 0.1 * seed_noise(s) + bump

    rep = compare_sweep(sweep_rows([0.001, 0.01], range(6), acc), param="lr", metric="acc", seed="seed", baseline="0.001")
    assert verdicts(rep)["0.01"] in ("sweep-under-powered", "sweep-no-reliable-difference")
    assert "sweep-reliably-better" not in rules(rep)


def test_best_baseline_makes_other_values_reliably_worse_with_all_pairs_holm():
    rows = sweep_rows([0.1, 0.2, 0.3], range(10), lambda v, s: 1.0 + seed_noise(s) + {0.1: -0.05, 0.2: 0.0, 0.3: -0.002}[v] + small_noise(v, s))
    rep = compare_sweep(rows, param="lr", metric="acc", seed="seed")
    g = rep.summary.stats["groups"][0]
    assert g["baseline"] == "0.2" and g["holm_family"].startswith("all 3 pairs")
    assert verdicts(rep)["0.1"] == "sweep-reliably-worse"
    assert verdicts(rep)["0.3"] != "sweep-reliably-worse"  # 0.002 below the best, inside the seed noise
    comps = {c["value"]: c for c in g["comparisons"]}
    assert comps["0.1"]["family_size"] == 3


def test_lower_is_better_orientation():
    rows = [{"lr": v, "seed": s, "loss": 1.0 + seed_noise(s) + (-0.05 if v == 2 else 0) + small_noise(v, s)} for v in (1, 2) for s in range(8)]
    rep = compare_sweep(rows, param="lr", metric="loss", seed="seed", lower_is_better=True, baseline=1)
    assert verdicts(rep)["2"] == "sweep-reliably-better"
    rep = compare_sweep(rows, param="lr", metric="loss", seed="seed", baseline=1)
    assert verdicts(rep)["2"] == "sweep-reliably-worse"


def test_three_seeds_are_under_powered_and_the_limit_is_stated():
    rows = sweep_rows([1, 2], range(3), lambda v, s: seed_noise(s) + 0.01 * v + small_noise(v, s))
    rep = compare_sweep(rows, param="lr", metric="acc", seed="seed", baseline=1, test="signflip")
    f = next(f for f in rep.findings if f.rule == "sweep-under-powered")
    assert "cannot go below p=0.25" in f.message
    g = rep.summary.stats["groups"][0]
    assert g["smallest_exact_p"] == 0.25
    assert "cannot give p below 0.25" in g["smallest_p_statement"] and "at least 6 seeds" in g["smallest_p_statement"]


def test_no_reliable_difference_with_enough_seeds():
    rows = sweep_rows([1, 2], range(12), lambda v, s: seed_noise(s) + 0.01 * math.cos(3 * s + v))
    rep = compare_sweep(rows, param="lr", metric="acc", seed="seed", baseline=1)
    f = next(f for f in rep.findings if f.measurements.get("value") == "2")
    assert f.rule == "sweep-no-reliable-difference"
    assert "80% power" in f.next_test


def test_divergence_is_reported_and_counted_against_the_value():
    def acc(v, s):
        if v == 0.1:
            return float("nan")
        return 0.7 + 0.1 * seed_noise(s) + small_noise(v, s)

    rows = sweep_rows([0.01, 0.1], range(10), acc)
    rep = compare_sweep(rows, param="lr", metric="acc", seed="seed")
    div = next(f for f in rep.findings if f.rule == "sweep-run-diverged")
    assert div.measurements["count"] == 10 and div.measurements["value"] == "0.1"
    worse = next(f for f in rep.findings if f.rule == "sweep-reliably-worse")
    assert worse.measurements["sign_test"]["losses"] == 10
    assert worse.measurements["p_test"] == pytest.approx(2 / 1024)


def test_single_diverged_seed_does_not_hide_the_others():
    def acc(v, s):
        if v == 0.1 and s == 4:
            return float("inf")
        return 0.7 + 0.1 * seed_noise(s) + small_noise(v, s)

    rep = compare_sweep(sweep_rows([0.01, 0.1], range(10), acc), param="lr", metric="acc", seed="seed", baseline="0.01")
    comp = rep.summary.stats["groups"][0]["comparisons"][0]
    assert comp["n_paired"] == 9 and comp["diverged_only_value"] == 1
    assert "sweep-run-diverged" in rules(rep)
    assert rep.summary.stats["groups"][0]["per_seed"]["4"]["0.1"] == "inf"


def test_failed_incomplete_and_unpaired_runs_are_listed_by_name():
    rep = compare_sweep(DATA / "wandb_ui_export.csv", param="lr", metric="val/acc", seed="seed")
    got = rules(rep)
    assert "sweep-run-failed" in got and "sweep-run-incomplete" in got
    failed = [f for f in rep.findings if f.rule == "sweep-run-failed"]
    assert any("ruby-sweep-6" in f.observation for f in failed)
    assert any(f.measurements["status"] == "missing" for f in failed)


def test_unpaired_seeds_are_excluded_and_named():
    rows = sweep_rows([1, 2], range(6), lambda v, s: seed_noise(s) + 0.05 * v + small_noise(v, s))
    rows.append({"lr": 2, "seed": 42, "acc": 10.0})  # an outlier seed with only one value
    rep = compare_sweep(rows, param="lr", metric="acc", seed="seed", baseline=1)
    f = next(f for f in rep.findings if f.rule == "sweep-unpaired-seeds")
    assert f.measurements["fully_unpaired"] == ["42"]
    assert "42" not in rep.summary.stats["groups"][0]["comparisons"][0]["seeds"]
    assert verdicts(rep)["2"] == "sweep-reliably-better"  # the outlier did not enter the mean


def test_no_repeated_seeds_is_a_clear_error():
    rows = [{"lr": v, "seed": s, "acc": 1.0} for v, s in ((1, 0), (2, 1), (3, 2))]
    with pytest.raises(SweepInputError, match="no seed was run with more than one value"):
        compare_sweep(rows, param="lr", metric="acc", seed="seed")


def test_baseline_must_be_a_value():
    rows = sweep_rows([1, 2], range(3), lambda v, s: s + v)
    with pytest.raises(SweepInputError, match="baseline '5' is not a value of lr; values: 1, 2"):
        compare_sweep(rows, param="lr", metric="acc", seed="seed", baseline=5)


def test_groups_keep_comparisons_apart():
    rows = []
    for ds, gain in (("cifar", 0.05), ("svhn", -0.05)):
        for s in range(8):
            for v in (1, 2):
                rows.append({"ds": ds, "lr": v, "seed": s, "acc": seed_noise(s) + (gain if v == 2 else 0) + small_noise(v, s)})
    rep = compare_sweep(rows, param="lr", metric="acc", seed="seed", group="ds", baseline=1)
    by_group = {f.measurements["group"]["ds"]: f.rule for f in rep.findings if f.rule in VERDICTS}
    assert by_group == {"cifar": "sweep-reliably-better", "svhn": "sweep-reliably-worse"}
    assert [g["group"] for g in rep.summary.stats["groups"]] == [{"ds": "cifar"}, {"ds": "svhn"}]


def test_monotone_trend_at_the_edge_suggests_extending_the_range():
    values = [1e-4, 1e-3, 1e-2, 1e-1]
    rows = sweep_rows(values, range(6), lambda v, s: seed_noise(s) + 0.02 * math.log10(v) + small_noise(v, s))
    rep = compare_sweep(rows, param="lr", metric="acc", seed="seed")
    f = next(f for f in rep.findings if f.rule == "sweep-monotone-trend")
    assert "rises" in f.message and "extend the sweep" in f.next_test
    trend = rep.summary.stats["groups"][0]["trend"]
    assert trend["slope"]["x"] == "log10(lr)" and trend["slope"]["mean"] == pytest.approx(0.02, abs=0.005)
    assert trend["page"]["method"].startswith("exact")


def test_u_shaped_response_is_flagged_not_called_a_trend():
    values = [1e-4, 1e-3, 1e-2, 1e-1, 1.0]
    rows = sweep_rows(values, range(8), lambda v, s: seed_noise(s) - 0.01 * (math.log10(v) + 2) ** 2 + small_noise(v, s))
    rep = compare_sweep(rows, param="lr", metric="acc", seed="seed")
    got = rules(rep)
    assert "sweep-interior-optimum" in got and "sweep-monotone-trend" not in got
    assert rep.summary.stats["groups"][0]["trend"]["best_value"] == "0.01"


def test_flat_noise_gives_no_trend_finding():
    rows = sweep_rows([1, 2, 3, 4], range(8), lambda v, s: seed_noise(s) + 0.01 * math.sin(7 * v * s + s))
    rep = compare_sweep(rows, param="lr", metric="acc", seed="seed")
    assert not {"sweep-monotone-trend", "sweep-interior-optimum"} & set(rules(rep))
    assert rep.summary.stats["groups"][0]["trend"]["friedman"]["p"] > 0.05


def test_categorical_parameter_gets_friedman_but_no_page():
    rows = [{"opt": o, "seed": s, "acc": seed_noise(s) + {"adam": 0, "sgd": -0.03, "lion": 0.001}[o] + small_noise(len(o), s)}
            for o in ("adam", "sgd", "lion") for s in range(8)]
    rep = compare_sweep(rows, param="opt", metric="acc", seed="seed")
    trend = rep.summary.stats["groups"][0]["trend"]
    assert "friedman" in trend and "page" not in trend


def test_zscore_recipe_flags_a_difference_the_paired_test_does_not():
    # Two values, three seeds, every seed a hair better with 2: the recipe's t is infinite (p = 0).
    rows = sweep_rows([1, 2], range(3), lambda v, s: seed_noise(s) + (1e-4 * (s + 1) if v == 2 else 0))
    rep = compare_sweep(rows, param="lr", metric="acc", seed="seed", baseline=1, zscore=True)
    f = next(f for f in rep.findings if f.rule == "sweep-zscore-recipe")
    assert f.measurements["p_holm"]["2"] == 0.0
    assert f.measurements["disagrees_for"] == ["2"]
    assert f.measurements["false_positive_rate_two_values"] == 0.25
    assert verdicts(rep)["2"] != "sweep-reliably-better"


def test_identical_differences_fall_back_to_the_exact_test():
    rows = sweep_rows([1, 2], range(8), lambda v, s: seed_noise(s) + (0.5 if v == 2 else 0.0))
    rep = compare_sweep(rows, param="lr", metric="acc", seed="seed", baseline=1)
    comp = rep.summary.stats["groups"][0]["comparisons"][0]
    assert comp["p_test"] == pytest.approx(2 / 256)
    assert any("exact sign-flip p decides" in n for n in comp["notes"])


def test_bad_arguments():
    rows = sweep_rows([1, 2], range(3), lambda v, s: s + v)
    with pytest.raises(SweepInputError, match="alpha"):
        compare_sweep(rows, param="lr", metric="acc", seed="seed", alpha=1.5)
    with pytest.raises(SweepInputError, match="unknown test"):
        compare_sweep(rows, param="lr", metric="acc", seed="seed", test="wilcoxon")


def test_plot_returns_png_bytes():
    pytest.importorskip("matplotlib", reason="plotting needs the optional 'plot' extra (matplotlib)")
    rows = sweep_rows([1e-3, 1e-2, 1e-1], range(5), lambda v, s: seed_noise(s) + v + (float("nan") if v == 0.1 and s == 2 else 0))
    rep, png = compare_sweep(rows, param="lr", metric="acc", seed="seed", plot=True)
    assert isinstance(rep, Report) and png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000


def test_tensorboard_directory_end_to_end():
    rep = compare_sweep(DATA / "tb", param="lr", metric="val/acc", seed="seed", baseline="0.001")
    comps = {c["value"]: c for c in rep.summary.stats["groups"][0]["comparisons"]}
    assert comps["0.01"]["mean_diff"] == pytest.approx(0.05, abs=1e-6) and comps["0.01"]["improved"] == 3
    assert "sweep-run-diverged" in rules(rep)


def test_plot_without_matplotlib_reports_an_error_entry(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib` raise ImportError
    rows = sweep_rows([1, 2], range(4), lambda v, s: seed_noise(s) + v)
    rep, png = compare_sweep(rows, param="lr", metric="acc", seed="seed", plot=True)
    assert png is None
    assert [e.kind for e in rep.errors] == ["plot-unavailable"] and "mlsleuth[plot]" in rep.errors[0].message


def test_json_rendering_is_strict_json_with_diverged_runs():
    import json

    from mlsleuth.render import render_json

    rows = sweep_rows([1, 2], range(5), lambda v, s: float("nan") if (v, s) == (2, 1) else seed_noise(s) + v)
    text = render_json(compare_sweep(rows, param="lr", metric="acc", seed="seed"))
    data = json.loads(text, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))
    assert data["summary"]["stats"]["groups"][0]["per_seed"]["1"]["2"] == "nan"


def test_group_with_one_value_is_an_error_entry_while_others_are_analysed():
    rows = [{"ds": "a", "lr": v, "seed": s, "acc": seed_noise(s) + v} for v in (1, 2) for s in range(5)]
    rows += [{"ds": "b", "lr": 1, "seed": s, "acc": seed_noise(s)} for s in range(5)]
    rep = compare_sweep(rows, param="lr", metric="acc", seed="seed", group=["ds"], baseline=1)
    assert [e.kind for e in rep.errors] == ["single-value-group"] and "ds=b" in rep.errors[0].message
    assert [g["group"] for g in rep.summary.stats["groups"]] == [{"ds": "a"}]


def test_many_seeds_use_seeded_monte_carlo_sign_flip():
    rows = sweep_rows([1, 2], range(12), lambda v, s: seed_noise(s) + 0.002 * v * (s % 3))
    rows += [{"lr": v, "seed": 100 + s, "acc": 0.01 * s + 0.001 * v * (s % 2)} for v in (1, 2) for s in range(14)]
    rep = compare_sweep(rows, param="lr", metric="acc", seed="seed", baseline=1)
    comp = rep.summary.stats["groups"][0]["comparisons"][0]
    assert comp["n_paired"] == 26 and comp["p_exact_is_exact"] is False
    again = compare_sweep(rows, param="lr", metric="acc", seed="seed", baseline=1)
    assert again.summary.stats["groups"][0]["comparisons"][0]["p_exact"] == comp["p_exact"]


def test_zscore_caveat_with_three_values_does_not_quote_the_two_value_rate():
    rows = sweep_rows([1, 2, 3], range(5), lambda v, s: seed_noise(s) + 0.01 * v + small_noise(v, s))
    rep = compare_sweep(rows, param="lr", metric="acc", seed="seed", zscore=True)
    f = next(f for f in rep.findings if f.rule == "sweep-zscore-recipe")
    assert f.measurements["false_positive_rate_two_values"] is None and "2^(1-S) (S=" not in f.observation

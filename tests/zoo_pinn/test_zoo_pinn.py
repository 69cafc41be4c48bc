"""The PINN bug zoo: every buggy script draws its check, no fixed twin or clean example draws a warning or error.

Each script is a small CPU PINN (a 1-D boundary-value problem, or a look-alike) traced for 20 steps.
"""

from __future__ import annotations

import pytest

from zoo_pinn.run_zoo_pinn import CASES, CLEAN, alarms, run_all

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def results():
    return run_all()


def test_at_least_six_pairs():
    assert len(CASES) >= 6


def test_bugs_are_found_with_the_right_check(results):
    missed = [c["name"] for c in CASES if not any(f.rule == c["rule"] for f in results[f"{c['name']}_bug"].findings)]
    assert len(CASES) - len(missed) >= 5 and len(missed) <= 1, f"missed: {missed}"


def test_fixed_twins_draw_no_warning_or_error(results):
    noisy = {c["name"]: alarms(results[f"{c['name']}_fixed"]) for c in CASES}
    assert not {k: v for k, v in noisy.items() if v}, noisy


def test_clean_examples_draw_no_warning_or_error(results):
    noisy = {c["name"]: alarms(results[c["name"]]) for c in CLEAN}
    assert not {k: v for k, v in noisy.items() if v}, noisy


def test_the_loss_is_split_into_terms_in_the_stats(results):
    stats = results["second_derivative_detached_bug"].summary.stats
    terms = {row["term"]: row for row in stats["pinn_loss_terms"]["first"]}
    assert set(terms) == {"loss_pde", "loss_bc"}
    assert terms["loss_pde"]["reaches_parameters"] is False and terms["loss_bc"]["grad_norm"] > 0

"""`pinn-loss-terms-imbalanced` (trace): PINN loss terms orders of magnitude apart."""

from __future__ import annotations

from ..recorded import findings_of
from .measurements import findings_for
from .pinn_measurements import breakdowns, pinn, site, term

CHECK = "pinn-loss-terms-imbalanced"


def test_si_units_residual_next_to_a_small_boundary_term_is_found():
    (f,) = findings_of("pinn_raw_units_imbalance_bug", CHECK)
    assert "pde_loss" in f.message and "bc_loss" in f.message
    assert f.measurements["value_ratio"] >= 1e4 and f.measurements["grad_norm_ratio"] >= 1e4


def test_the_non_dimensional_twin_is_fine():
    assert not findings_of("pinn_raw_units_imbalance_fixed", CHECK)


def test_a_classic_poisson_problem_a_thousand_apart_in_value_is_fine():
    # -u'' = pi^2 sin(pi x): the residual starts near 50, the boundary term near 0.03, gradients ten apart
    assert not findings_of("pinn_second_derivative_detached_fixed", CHECK)
    assert not findings_of("pinn_clean_dde_style_poisson", CHECK)


def test_values_apart_but_gradients_close_are_fine():
    splits = breakdowns(*[[term("pde", 1e5, 3.0), term("bc", 1.0, 1.0)]] * 3)
    assert not findings_for(CHECK, pinn([site()], splits))


def test_values_and_gradients_apart_are_found_from_measurements():
    splits = breakdowns(*[[term("pde", 2e5, 4e4), term("bc", 1e-1, 0.5)]] * 3)
    (f,) = findings_for(CHECK, pinn([site()], splits))
    assert f.location.step == 0
    assert "pde" in f.message


def test_a_gradient_penalty_next_to_a_small_wasserstein_term_is_fine():
    # the penalty starts ~2e3 times the Wasserstein estimate in value, but their gradients are close
    assert not findings_of("pinn_clean_gradient_penalty", CHECK)

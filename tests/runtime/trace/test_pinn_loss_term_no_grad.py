"""`pinn-loss-term-no-grad` (trace): a term of the PINN loss carries no gradient to the parameters."""

from __future__ import annotations

from ..recorded import findings_of
from .measurements import findings_for
from .pinn_measurements import breakdowns, pinn, site, term

CHECK = "pinn-loss-term-no-grad"


def test_relu_network_second_derivative_is_found():
    (f,) = findings_of("pinn_relu_activation_bug", CHECK)
    assert "physics" in f.message and "ReLU" in f.observation
    assert "activation" in f.fix


def test_not_found_with_tanh():
    assert not findings_of("pinn_relu_activation_fixed", CHECK)


def test_a_cut_term_is_found_from_measurements():
    splits = breakdowns(*[[term("loss_pde", 5.0, 0.0, reaches=False), term("loss_bc", 0.1, 0.5)]] * 3)
    (f,) = findings_for(CHECK, pinn([site()], splits))
    assert "loss_pde" in f.message and "cut from the graph" in f.observation


def test_a_term_that_trains_on_some_steps_is_fine():
    # a term whose gradient is zero on one step only (an exactly satisfied condition at a step) is not dead
    splits = breakdowns([term("loss_pde", 5.0, 1.0), term("loss_bc", 0.1, 0.0)],
                        [term("loss_pde", 4.0, 1.0), term("loss_bc", 0.1, 0.4)])
    assert not findings_for(CHECK, pinn([site()], splits))


def test_a_zero_accumulator_is_not_a_term():
    splits = breakdowns(*[[term("term 1", 0.0, 0.0, reaches=False), term("loss", 0.5, 0.7)]] * 3)
    assert not findings_for(CHECK, pinn([site()], splits))


def test_explained_by_the_detached_derivative_it_is_not_repeated():
    assert not findings_of("pinn_second_derivative_detached_bug", CHECK)
    assert not findings_of("pinn_collocation_no_grad_bug", CHECK)

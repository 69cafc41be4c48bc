"""`pinn-derivative-detached` (trace): a derivative in the residual taken without create_graph=True."""

from __future__ import annotations

from ..recorded import findings_of
from .measurements import findings_for
from .pinn_measurements import breakdowns, pinn, site, term

CHECK = "pinn-derivative-detached"


def test_second_derivative_without_create_graph_is_found():
    (f,) = findings_of("pinn_second_derivative_detached_bug", CHECK)
    assert f.location.line == 39 and f.location.path.endswith("second_derivative_detached_bug.py")
    assert "create_graph" in f.message and "loss_pde" in f.observation
    assert f.next_test and f.fix


def test_first_derivative_whose_term_is_dead_is_found():
    (f,) = findings_of("pinn_first_derivative_detached_bug", CHECK)
    assert f.location.line == 22


def test_not_found_with_create_graph():
    assert not findings_of("pinn_second_derivative_detached_fixed", CHECK)
    assert not findings_of("pinn_first_derivative_detached_fixed", CHECK)


def test_adversarial_input_gradient_is_not_a_detached_residual():
    # FGSM takes the input gradient without create_graph in every step, and every loss term trains
    assert not findings_of("pinn_clean_adversarial_training", CHECK)


def test_evaluating_the_residual_every_few_hundred_steps_is_fine():
    # a second derivative without create_graph, but called in 1 of 20 training steps (an evaluation): not the training residual
    data = pinn([site(line=5), site(line=6, chained=20), site(line=30, calls=1, before_backward=1, no_create_graph=1, chained=1, chained_without=1)])
    assert not findings_for(CHECK, data)


def test_a_derivative_of_a_detached_derivative_that_raised_is_found():
    err = {"type": "RuntimeError", "message": "element 0 of tensors does not require grad and does not have a grad_fn", "step": 0}
    data = pinn([site(line=7, calls=1, before_backward=0, on_detached_calls=1, error=err)], backward_steps=0)
    (f,) = findings_for(CHECK, data)
    assert "RuntimeError" in f.observation


def test_dead_term_with_create_graph_everywhere_is_left_to_the_term_check():
    splits = breakdowns(*[[term("loss_pde", 5.0, 0.0, reaches=False), term("loss_bc", 0.1, 0.5)]] * 3)
    assert not findings_for(CHECK, pinn([site()], splits))


def test_a_gradient_penalty_with_create_graph_is_fine():
    assert not findings_of("pinn_clean_gradient_penalty", CHECK)

"""`pinn-collocation-coverage` (trace): collocation points that cover only part of the domain."""

from __future__ import annotations

from ..recorded import findings_of
from .measurements import findings_for
from .pinn_measurements import pinn, site

CHECK = "pinn-collocation-coverage"


def test_points_on_0_1_for_a_domain_0_pi_are_found():
    (f,) = findings_of("pinn_collocation_coverage_bug", CHECK)
    assert "32%" in f.message and f.measurements["domain"][1] > 3.1


def test_points_over_the_whole_domain_are_fine():
    assert not findings_of("pinn_collocation_coverage_fixed", CHECK)


def test_time_dependent_problem_with_initial_and_boundary_points_is_fine():
    assert not findings_of("pinn_clean_dde_style_diffusion_reaction", CHECK)


def test_a_neumann_site_on_the_boundary_does_not_count_as_the_residual():
    # the widest site is the interior residual; a derivative at x = 1 only is a boundary condition
    data = pinn([site(line=5, coords=((0.0, 0.98),)), site(line=9, coords=((1.0, 1.0),))], model_inputs=((0.0, 1.0),))
    assert not findings_for(CHECK, data)


def test_an_evaluation_site_outside_the_training_step_is_ignored():
    data = pinn([site(line=5, coords=((0.0, 0.3),), calls=1, before_backward=1)], model_inputs=((0.0, 1.0),))
    assert not findings_for(CHECK, data)


def test_a_gradient_penalty_on_interpolated_points_is_fine():
    # WGAN-GP differentiates the critic at points between real and fake samples: inside the inputs' range
    assert not findings_of("pinn_clean_gradient_penalty", CHECK)

"""`pinn-collocation-no-grad` (trace): the points differentiated at do not carry gradients into the output."""

from __future__ import annotations

from ..recorded import findings_of
from .measurements import findings_for
from .pinn_measurements import pinn, site

CHECK = "pinn-collocation-no-grad"


def test_requires_grad_set_after_the_forward_is_found():
    (f,) = findings_of("pinn_collocation_no_grad_bug", CHECK)
    assert f.location.path.endswith("collocation_no_grad_bug.py") and "requires_grad" in f.fix


def test_not_found_when_the_points_require_grad_before_the_forward():
    # the fixed twin also passes allow_unused=True and materialize_grads=True: only unused inputs count
    assert not findings_of("pinn_collocation_no_grad_fixed", CHECK)


def test_points_without_requires_grad_that_raised_are_found():
    err = {"type": "RuntimeError", "message": "One of the differentiated Tensors does not require grad", "step": 0}
    data = pinn([site(calls=1, before_backward=0, inputs_without_grad_calls=1, error=err)], backward_steps=0)
    (f,) = findings_for(CHECK, data)
    assert "did not require gradients" in f.observation and "RuntimeError" in f.observation


def test_a_clean_time_dependent_pinn_is_fine():
    assert not findings_of("pinn_clean_dde_style_diffusion_reaction", CHECK)

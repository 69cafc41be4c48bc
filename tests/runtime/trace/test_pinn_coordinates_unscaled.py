"""`pinn-coordinates-unscaled` (trace): collocation coordinates far from unit scale."""

from __future__ import annotations

from ..recorded import findings_of
from .measurements import findings_for
from .pinn_measurements import pinn, site

CHECK = "pinn-coordinates-unscaled"


def test_coordinates_in_metres_are_found():
    (f,) = findings_of("pinn_coordinates_unscaled_bug", CHECK)
    assert "1.00e+04" in f.message and "x / L" in f.fix


def test_scaled_coordinates_are_fine():
    assert not findings_of("pinn_coordinates_unscaled_fixed", CHECK)


def test_a_domain_of_a_few_units_is_fine():
    # [0, 2 pi], [-5, 5] in space and [0, 20] in time are ordinary PINN domains
    assert not findings_for(CHECK, pinn([site(coords=((0.0, 6.283), (-5.0, 5.0), (0.0, 20.0)))],
                                        model_inputs=((0.0, 6.283), (-5.0, 5.0), (0.0, 20.0))))
    assert not findings_of("pinn_first_derivative_detached_fixed", CHECK)


def test_micrometres_in_metres_are_found():
    (f,) = findings_for(CHECK, pinn([site(coords=((0.0, 2e-4),))], model_inputs=((0.0, 2e-4),)))
    assert "column 0" in f.message


def test_a_neumann_condition_at_one_point_is_not_a_tiny_span():
    # a derivative site on the boundary points only spans nothing; the interior site sets the scale
    assert not findings_for(CHECK, pinn([site(line=5), site(line=9, coords=((1.0, 1.0),))]))

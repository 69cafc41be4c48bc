"""Optimizer steps that take a closure: the forward and backward run *inside* ``optimizer.step``.

Child side (stdlib only). ``optimizer.step(closure)`` (LBFGS, and every step of PyTorch Lightning's
automatic optimization, which passes its training_step + zero_grad + backward as the closure)
calls the closure from inside ``step``. torch's step pre-hook fires *before* the closure, so an
observer measuring gradients there would see the previous step's gradients (or none at the first
step), and the call order would read "step, forward, zero_grad, backward". :func:`defer_step_start`
wraps the closure so that the runner's step start is announced after the closure's first call
returns: gradients are then this step's and the parameters are not updated yet, as for a plain
``loss.backward(); optimizer.step()``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def closure_of(args: tuple, kwargs: dict) -> Any:
    """The closure passed to ``optimizer.step`` (``args[0]`` is the optimizer itself), or None."""
    if "closure" in kwargs:
        return kwargs["closure"]
    return args[1] if len(args) > 1 else None


def defer_step_start(args: tuple, kwargs: dict, begin: Callable[[], None]) -> tuple | None:
    """``(args, kwargs)`` with the closure wrapped so that ``begin()`` runs after its first call; None without a closure."""
    closure = closure_of(args, kwargs)
    if not callable(closure):
        return None
    called = [False]

    def wrapped(*a: Any, **k: Any) -> Any:
        out = closure(*a, **k)
        if not called[0]:
            called[0] = True
            begin()
        return out

    if "closure" in kwargs:
        return args, {**kwargs, "closure": wrapped}
    return (args[0], wrapped, *args[2:]), kwargs

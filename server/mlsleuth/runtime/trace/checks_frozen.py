"""``trace`` check on parameters frozen with ``requires_grad=False`` that the optimizer still moves.

It reads the per-parameter records of :mod:`mlsleuth.runtime.child.trace_observer` (``frozen_moved_steps``: the
sampled steps at which a parameter had ``requires_grad=False`` when ``optimizer.step()`` began and had changed when
it returned) and, for a freeze the script reaches only after the traced steps, ``frozen_moved_after_window`` (the
same measurement by :mod:`mlsleuth.runtime.child.after_frozen` while the script ran on). Registered with the other trace checks (``checks.py`` imports this module). Import-light: no torch.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mlsleuth.runtime.registry import Found, runtime_check

MAX_MODULES = 5


@runtime_check("frozen-parameters-still-updated", tool="trace", category="training-loop", severity="warning")
def frozen_parameters_still_updated(run: Any) -> Iterator[Found]:
    """Frozen (requires_grad=False) parameters still updated.

    What it finds: parameters that have ``requires_grad=False`` when ``optimizer.step()`` starts, are still in that
    optimizer, and have moved when the step returns. Measured on the traced steps and, for a freeze that comes later
    (a second stage after N epochs), on a few steps while the script runs on after them.
    Why it matters: ``requires_grad=False`` only stops new gradients. An optimizer that still holds the parameter
    keeps updating it from what is already there: a gradient left from before the freeze (kept as zeros by
    ``zero_grad(set_to_none=False)``), its momentum or Adam moments, and weight decay. The "frozen" layer drifts
    away from the weights it was frozen to keep, and nothing reports it.
    How to confirm: copy the frozen layer's weights before a few steps and compare after: they differ; print
    ``p.grad`` for one of them: it is a tensor (zeros), not None.
    What to do instead: take the frozen parameters out of the optimizer (rebuild it, or give them their own group
    with lr=0 and weight_decay=0), or set their ``.grad`` to None (``zero_grad(set_to_none=True)``) and clear their
    optimizer state when freezing.
    """
    moved = [p for p in run.params if p.get("frozen_moved_steps")]
    when = ""
    if not moved:
        moved = [{**p, "frozen_moved_steps": p.get("moved_steps") or 1, "first_frozen_move": None}
                 for p in run.data.get("frozen_moved_after_window") or [] if p.get("name")]
        when = " after the traced steps (while the script ran on)"
    if not moved:
        return
    by_module: dict[str, list[dict]] = {}
    for p in moved:
        by_module.setdefault(p.get("module") or "(model)", []).append(p)
    first_module, first_params = min(by_module.items(), key=lambda kv: min(p.get("first_frozen_move") or 0 for p in kv[1]))
    step = min(p.get("first_frozen_move") or 0 for p in first_params) if not when else None
    names = [p["name"] for p in moved]
    modules = sorted(by_module)[:MAX_MODULES]
    first = f", first after step {step}" if step is not None else when
    yield Found(
        f"parameters of '{first_module}' have requires_grad=False but the optimizer still changes them at every step "
        "(stale gradients, momentum or weight decay): the frozen layer drifts",
        observation=f"{len(moved)} frozen parameter(s) in {', '.join(repr(m) for m in modules)} moved during "
                    f"optimizer.step() on {max(p['frozen_moved_steps'] for p in moved)} sampled step(s){first}: "
                    f"{', '.join(names[:4])}",
        next_test="copy a frozen layer's weight before a few steps and compare after; print its .grad (zeros, not None)",
        fix="remove frozen parameters from the optimizer (or rebuild it), or set their .grad to None and clear their "
            "optimizer state when freezing",
        measurements={"parameters": names[:50], "modules": modules, **({"after_traced_steps": True} if when else {})},
        module=first_module, step=step, phase="optimizer")

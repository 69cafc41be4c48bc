"""``trace`` check on how the optimizer's parameter groups were filled: a group a name filter left empty.

It reads ``loop_order.optimizer_groups``, the size and options of each optimizer's parameter groups that
:mod:`mlsleuth.runtime.child.trace_loop_order` recorded at the end of the run. Registered with the other trace
checks (``checks.py`` imports this module). Import-light: no torch here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mlsleuth.runtime.registry import Found, runtime_check


@runtime_check("optimizer-param-group-empty", tool="trace", category="training-loop", severity="warning")
def optimizer_param_group_empty(run: Any) -> Iterator[Found]:
    """An optimizer parameter group with its own settings holds no parameter at all.

    What it finds: an optimizer with a parameter group of zero tensors whose learning rate or weight decay differs
    from a group that does hold the parameters (typically the no-decay group of a "bias / norm weights get no weight
    decay" split whose name filter matches nothing, e.g. it looks for "LayerNorm.weight" in a model that names it
    "ln_1.weight").
    Why it matters: the settings meant for those parameters are applied to none; they train with the other
    group's settings (biases and norm gains decayed towards 0, a head without its own learning rate). Nothing
    fails and the run looks normal.
    How to confirm: ``print([len(g["params"]) for g in optimizer.param_groups])``: one group is 0; then print the
    parameter names the filter was meant to catch (``[n for n, _ in model.named_parameters()]``).
    What to do instead: match on what the model really names its parameters (``p.ndim < 2`` is a robust
    no-decay test), and assert that every group is non-empty after building it.
    """
    lo = run.data.get("loop_order") or {}
    for opt in lo.get("optimizer_groups") or []:
        groups = opt.get("groups") or []
        filled = [g for g in groups if g.get("params")]
        for index, group in enumerate(groups):
            if group.get("params") or not filled:
                continue
            differs = [k for k in ("weight_decay", "lr") if k in group and any(g.get(k) != group[k] for g in filled)]
            if not differs:
                continue
            settings = ", ".join(f"{k}={group[k]:g}" for k in differs)
            yield Found(
                f"parameter group {index} of the {opt.get('type')} ({settings}) holds no parameters: the filter that should "
                f"fill it matched nothing, so its settings apply to no tensor",
                observation=f"group sizes {[g.get('params', 0) for g in groups]}; the non-empty group(s) use "
                            + "; ".join(", ".join(f"{k}={g[k]:g}" for k in differs if k in g) for g in filled[:3]),
                next_test='print([len(g["params"]) for g in optimizer.param_groups]) and the parameter names the filter looks for',
                fix="build the group from what the model really names its parameters (p.ndim < 2 for biases and norm gains) and "
                    "assert every group is non-empty",
                measurements={"optimizer": opt.get("type"), "groups": groups}, phase="setup")
            return

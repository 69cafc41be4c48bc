"""``trace`` check on the model's train/eval mode during the training steps themselves.

It reads ``train_modes``, what :mod:`mlsleuth.runtime.child.trace_modes` measured at each backward pass.
Registered with the other trace checks (``checks.py`` imports this module). Import-light: no torch here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mlsleuth.runtime import thresholds as T
from mlsleuth.runtime.registry import Found, runtime_check


@runtime_check("trained-in-eval-mode", tool="trace", category="training-loop", severity="warning")
def trained_in_eval_mode(run: Any) -> Iterator[Found]:
    """Training steps run with the model in eval mode.

    What it finds: optimizer steps whose backward pass went through a model in eval mode (``model.training`` is
    False) while dropout or batch-norm modules in the part being trained were inactive: at least
    {T.TRAIN_IN_EVAL_MIN_STEPS} traced steps, and at least {pct.TRAIN_IN_EVAL_SHARE}% of the steps from the first
    such step on. A model whose trained part has no dropout or batch-norm (eval mode changes nothing there, as in
    linear probing on a frozen backbone) and evaluation passes that are never backpropagated are not counted.
    Why it matters: a validation pass that calls ``model.eval()`` without ``model.train()`` afterwards, or a model
    loaded with ``from_pretrained`` (which returns it in eval mode) and never switched, trains with dropout off and
    batch-norm normalising with frozen running statistics. Nothing fails; the model overfits or trains worse than
    the same code with the mode restored.
    How to confirm: print ``model.training`` right before ``loss.backward()`` in the training loop: it is False
    (after the first validation, or from the start).
    What to do instead: call ``model.train()`` at the start of every training epoch (or right after each
    evaluation pass); put the mode switch in the evaluation helper's ``finally`` so it is always restored.
    """
    tm = run.data.get("train_modes") or {}
    steps = tm.get("eval_mode_steps") or []
    watched = tm.get("steps_watched") or 0
    if len(steps) < T.TRAIN_IN_EVAL_MIN_STEPS or not watched:
        return
    span = max(watched - steps[0], len(steps))
    if len(steps) / span < T.TRAIN_IN_EVAL_SHARE:
        return
    root = (tm.get("roots") or [{}])[0]
    mods = root.get("modules") or []
    names = ", ".join(f"{m['module'] or root.get('root')} ({m['type']})" for m in mods[:4])
    start = "from the first step" if steps[0] == 0 else f"from step {steps[0]} on (after an evaluation pass?)"
    yield Found(
        f"the model trains in eval mode {start}: dropout is off and batch-norm uses its frozen running statistics "
        f"during the training steps (model.train() is never called again)",
        observation=f"{len(steps)} of the {span} traced steps from step {steps[0]} backpropagated through "
                    f"'{root.get('root')}' with training=False; inactive modules in the trained part: {names}"
                    + (f" and {root.get('count', 0) - len(mods[:4])} more" if root.get("count", 0) > 4 else ""),
        next_test="print(model.training) right before loss.backward() in the training loop: it prints False",
        fix="call model.train() at the start of each training epoch, or right after every evaluation pass",
        measurements={"eval_mode_steps": steps[:50], "steps_watched": watched, "root": root.get("root"), "modules": mods},
        module=(mods[0]["module"] if mods else None) or "(model)", step=steps[0], phase="forward")

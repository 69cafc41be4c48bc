"""``trace`` checks on the order of the training step's parts: gradient clipping after the optimizer step, and
backward passes that no optimizer step ever used.

They read ``loop_order``, what :mod:`mlsleuth.runtime.child.trace_loop_order` measured. Registered with the other
trace checks (``checks.py`` imports this module). Import-light: no torch here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mlsleuth.runtime import thresholds as T
from mlsleuth.runtime.registry import Found, runtime_check


@runtime_check("clip-after-optimizer-step", tool="trace", category="training-loop", severity="warning")
def clip_after_optimizer_step(run: Any) -> Iterator[Found]:
    """Gradient clipping runs after optimizer.step(), so it clips nothing the optimizer uses.

    What it finds: calls of ``clip_grad_norm_`` / ``clip_grad_value_`` made with no backward pass since the last
    optimizer step: at least {T.CLIP_AFTER_STEP_MIN_CALLS} of them after the first step, and at least half of all
    clip calls.
    Why it matters: the step has already used the unclipped gradients, and the next ``zero_grad`` (or backward)
    discards the clipped ones. The run trains as if there were no clipping: a spike in the loss or a divergence the
    clipping was meant to stop still happens, while the code looks protected.
    How to confirm: print the gradient norm that ``clip_grad_norm_`` returns and the one right before
    ``optimizer.step()``: the step sees norms above ``max_norm``.
    What to do instead: clip between ``loss.backward()`` and ``optimizer.step()`` (after ``scaler.unscale_`` with
    mixed precision).
    """
    lo = run.data.get("loop_order") or {}
    after, total = lo.get("clips_after_step", 0), lo.get("clips", 0)
    if after < T.CLIP_AFTER_STEP_MIN_CALLS or after * 2 < total:
        return
    yield Found(
        "gradients are clipped after optimizer.step(): the step already used the unclipped gradients, so the clipping has no effect",
        observation=f"{after} of {total} clip call(s) after the first step came with no backward pass since the last "
                    f"optimizer.step() (first at step {lo.get('first_after_step')})",
        next_test="print the norm clip_grad_norm_ returns and compare it with max_norm: the step before it saw that unclipped norm",
        fix="move the clip between loss.backward() and optimizer.step() (after scaler.unscale_(optimizer) with a GradScaler)",
        measurements=lo, step=lo.get("first_after_step"), phase="optimizer")


@runtime_check("optimizer-never-stepped", tool="trace", category="training-loop", severity="warning")
def optimizer_never_stepped(run: Any) -> Iterator[Found]:
    """The script built an optimizer and ran backward passes, but finished without a single optimizer step.

    What it finds: a run that ran to its end (no exception, timeout or exit code) with an optimizer built, at least {T.NEVER_STEPPED_MIN_BACKWARDS}
    backward passes and no ``optimizer.step()``.
    Why it matters: nothing was trained. Typical causes: a gradient-accumulation count larger than the number of
    batches per epoch with the counter reset each epoch (``(i + 1) % accum == 0`` never holds), a step placed
    under a condition that never holds, or a step on an object that is not the optimizer.
    How to confirm: count the calls of ``optimizer.step()`` (a print next to it) over one epoch; compare the
    accumulation count with ``len(train_loader)``.
    What to do instead: step when the epoch ends too (``(i + 1) % accum == 0 or i + 1 == len(loader)``), keep the
    micro-batch counter across epochs, or lower the accumulation count below the batches per epoch.
    """
    lo = run.data.get("loop_order") or {}
    backwards = lo.get("backwards_without_step", 0)
    if run.steps or lo.get("ended") != "finished" or not lo.get("optimizers_built") or backwards < T.NEVER_STEPPED_MIN_BACKWARDS:
        return
    yield Found(
        f"the script ran {backwards} backward passes but never called optimizer.step(): nothing was trained",
        observation=f"{lo.get('optimizers_built')} optimizer(s) built, {backwards} backward pass(es), 0 optimizer steps "
                    f"before the script finished",
        next_test="print a line next to optimizer.step() and run one epoch: it never prints; compare the accumulation count with len(train_loader)",
        fix="step at the end of each epoch too ((i + 1) % accum == 0 or i + 1 == len(loader)), or use an accumulation count below the batches per epoch",
        measurements=lo, phase="optimizer")

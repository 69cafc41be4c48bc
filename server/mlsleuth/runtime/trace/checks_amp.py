"""``trace`` checks for mixed precision (GradScaler, autocast) and accelerate's training idioms.

The child's :mod:`trace_amp` measures (``data["amp"]`` of the trace observer's result): GradScaler steps
attempted and skipped, clipping while gradients still hold the loss scale, optimizer steps taken directly
on scaled gradients, and which backward passes went through ``accelerator.backward``. Imported by
:mod:`mlsleuth.runtime.trace.checks` (one line), which is what registers these checks. Import-light: no
torch. ``run`` is a ``checks.TraceRun``; only ``run.data``, ``run.path`` and ``run.command`` are read.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from mlsleuth.runtime import thresholds as T
from mlsleuth.runtime.common import fmt
from mlsleuth.runtime.registry import Found, runtime_check
from mlsleuth.runtime.trace.locations import site_location


def _amp(run: Any) -> dict:
    return run.data.get("amp") or {}




def gradients_still_scaled(data: dict) -> bool:
    """Whether the run clipped or stepped on gradients still multiplied by a GradScaler's scale.

    The per-parameter update and gradient statistics of such a run reflect the scale, not the learning
    rate or the architecture, so those checks stay silent (their advice would be wrong).
    """
    amp = data.get("amp") or {}
    return bool(amp.get("clips_on_scaled") or amp.get("scaled_steps"))


def accelerate_backward_bypassed(data: dict) -> bool:
    """accelerate accumulates over several micro-batches but no backward went through ``accelerator.backward``."""
    amp = data.get("amp") or {}
    acc = amp.get("accelerate") or {}
    roots = amp.get("backward_roots") or {}
    return acc.get("accumulation_steps", 1) > 1 and roots.get("total", 0) > 0 and not roots.get("accelerate")


@runtime_check("amp-steps-skipped", tool="trace", category="numerical", severity="error")
def amp_steps_skipped(run: Any) -> Iterator[Found]:
    """The GradScaler skipped most optimizer steps: the model is not training.

    What it finds: ``scaler.step(optimizer)`` found inf/NaN gradients and skipped ``optimizer.step()`` on at
    least {T.AMP_SKIPPED_MIN} steps and {pct.AMP_SKIPPED_FRACTION}% of all attempts.
    Why it matters: a few skipped steps at the start are how GradScaler calibrates its scale; skipping most of
    them means the gradients are non-finite whatever the scale (an op with an infinite derivative such as sqrt or
    log at 0, a division by zero), and the scale keeps halving. The loss prints finite numbers, the script never
    fails, and the weights never change.
    How to confirm: print ``scaler.get_scale()`` each step (it falls by half every step) and check
    ``torch.isfinite(p.grad).all()`` after ``scaler.unscale_(optimizer)``.
    What to do instead: find the op whose gradient is not finite (``mlsleuth nan SCRIPT`` with the scaler disabled,
    ``GradScaler(enabled=False)``, stops at the first non-finite value) and fix it, e.g. ``sqrt(x + eps)`` or
    ``torch.cdist``; never silence it by lowering the initial scale.
    """
    for rec in _amp(run).get("scalers", []):
        attempts, skipped = rec.get("attempts", 0), rec.get("skipped", 0)
        if skipped < T.AMP_SKIPPED_MIN or not attempts or skipped / attempts < T.AMP_SKIPPED_FRACTION:
            continue
        scales = rec.get("scales") or []
        now = rec.get("scale_now", scales[-1] if scales else None)
        trail = f"; the scale fell from {fmt(rec.get('initial_scale'))} to {fmt(now)}" if now is not None else ""
        yield Found(
            f"GradScaler skipped {skipped} of {attempts} optimizer steps because the gradients held inf/NaN: the weights are not being updated",
            observation=f"scaler.step() found non-finite gradients on {skipped} of {attempts} calls (first at step "
                        f"{rec.get('first_skip_step')}){trail}; the loss itself stayed finite, so nothing else failed",
            next_test=f"{run.command} with GradScaler(enabled=False), or mlsleuth nan on the script: the first non-finite gradient names the op",
            fix="fix the op with an infinite or undefined derivative (e.g. sqrt(x + eps) instead of sqrt(x) at 0, clamp before log or division); "
                "do not lower the initial scale to hide it",
            measurements={"attempts": attempts, "skipped": skipped, "scales": scales[:30], "scale_now": now},
            step=rec.get("first_skip_step"), phase="optimizer")


@runtime_check("clip-on-scaled-gradients", tool="trace", category="training-loop", severity="error")
def clip_on_scaled_gradients(run: Any) -> Iterator[Found]:
    """Gradients clipped while still multiplied by the GradScaler's scale (no ``scaler.unscale_`` first).

    What it finds: ``clip_grad_norm_`` ran on parameters whose gradients came from ``scaler.scale(loss).backward()``
    and had not been unscaled (``scaler.unscale_(optimizer)``) for their optimizer yet.
    Why it matters: the norm it measures is the true norm times the scale (65,536 at the start), so the threshold
    meant for real gradients almost always triggers and shrinks every update by about the scale; ``scaler.step`` then
    divides by the scale again. Training crawls and looks like a learning rate far too small, but raising it only
    makes the clipping change with the scale.
    How to confirm: print the value ``clip_grad_norm_`` returns: it is thousands of times the max_norm.
    What to do instead: call ``scaler.unscale_(optimizer)`` right before ``clip_grad_norm_`` (then ``scaler.step``
    and ``scaler.update`` as usual); with accelerate, use ``accelerator.clip_grad_norm_``, which unscales first.
    """
    clips = _amp(run).get("clips_on_scaled") or []
    if not clips:
        return
    first = clips[0]
    norms = [c.get("total_norm") for c in clips if isinstance(c.get("total_norm"), (int, float))]
    yield Found(
        "gradients are clipped while still multiplied by the GradScaler scale: the clip threshold applies to scaled "
        "gradients and shrinks every update",
        observation=f"clip_grad_norm_(max_norm={fmt(first.get('max_norm'))}) measured a total norm of {fmt(first.get('total_norm'))} at step "
                    f"{first.get('step')} with the loss scale at {fmt(first.get('scale'))} and no scaler.unscale_(optimizer) before it; "
                    f"seen on {len(clips)} step(s)",
        next_test="print(torch.nn.utils.clip_grad_norm_(...)) : a norm in the thousands against max_norm around 1 means the gradients are still scaled",
        fix="call scaler.unscale_(optimizer) right before clip_grad_norm_ (keep scaler.step(optimizer); scaler.update() after it); "
            "with accelerate use accelerator.clip_grad_norm_",
        measurements={"clips": len(clips), "scale": first.get("scale"), "max_norm": first.get("max_norm"), "total_norms": norms[:20]},
        step=first.get("step"), phase="optimizer", op="clip_grad_norm_", **site_location(run, first))


@runtime_check("optimizer-stepped-on-scaled-gradients", tool="trace", category="training-loop", severity="error")
def optimizer_stepped_on_scaled_gradients(run: Any) -> Iterator[Found]:
    """``optimizer.step()`` called directly after ``scaler.scale(loss).backward()``.

    What it finds: an optimizer stepped on gradients a GradScaler had multiplied, without ``scaler.step(optimizer)``
    or ``scaler.unscale_(optimizer)`` in between.
    Why it matters: the update uses gradients the scale times too large (65,536 at the start): the first steps blow
    the weights up and the loss soon turns to NaN; inf gradients are not skipped either.
    How to confirm: compare ``p.grad.norm()`` right before the step with and without ``scaler.scale``.
    What to do instead: replace ``optimizer.step()`` by ``scaler.step(optimizer)`` followed by ``scaler.update()``.
    """
    steps = _amp(run).get("scaled_steps") or []
    if not steps:
        return
    first = steps[0]
    yield Found(
        f"{first.get('optimizer', 'the optimizer')}.step() ran on gradients still multiplied by the GradScaler scale "
        f"({fmt(first.get('scale'))}): every update is that many times too large",
        observation=f"the backward pass went through scaler.scale(loss) and the optimizer stepped at step {first.get('step')} without "
                    f"scaler.step or scaler.unscale_; seen on {len(steps)} step(s)",
        next_test="print(next(model.parameters()).grad.norm()) before the step: it is about the scale times its value without the scaler",
        fix="call scaler.step(optimizer) and then scaler.update() instead of optimizer.step()",
        measurements={"steps": len(steps), "scale": first.get("scale")},
        step=first.get("step"), phase="optimizer", **site_location(run, first))


@runtime_check("grad-accumulation-divided-twice", tool="trace", category="training-loop", severity="warning")
def grad_accumulation_divided_twice(run: Any) -> Iterator[Found]:
    """The loss is divided by the accumulation steps twice.

    What it finds: on optimizer steps that follow k >= 2 backward passes (at least {T.ACCUMULATION_MIN_STEPS} such
    steps), the value passed to backward() is about 1/k**2 of the loss function's output (within a factor of
    {T.ACCUMULATION_DOUBLE_TOLERANCE:g}), not 1/k. Typical with accelerate: the script divides the loss by
    ``gradient_accumulation_steps`` and ``accelerator.backward`` divides it again.
    Why it matters: every update is k times smaller than intended; it looks like a learning rate too small.
    How to confirm: print the loss the criterion returns next to the value reaching backward().
    What to do instead: divide once: with ``accelerator.backward(loss)`` inside ``accelerator.accumulate(model)``,
    pass the plain loss; in a hand-written loop, divide by k yourself and nowhere else.
    """
    acc = [a for a in run.data.get("accumulation", [])
           if a.get("backward", 0) >= 2 and isinstance(a.get("root_scale"), (int, float)) and a["root_scale"] > 0]
    if len(acc) < T.ACCUMULATION_MIN_STEPS:
        return
    ks = sorted(a["backward"] for a in acc)
    k = ks[len(ks) // 2]
    scales = sorted(a["root_scale"] for a in acc)
    median = scales[len(scales) // 2]
    tol = T.ACCUMULATION_DOUBLE_TOLERANCE
    if not (math.isfinite(median) and 1 / (k * k * tol) <= median <= tol / (k * k)):
        return
    via = " (accelerator.backward divides it once more)" if (_amp(run).get("backward_roots") or {}).get("accelerate") else ""
    yield Found(
        f"the loss is divided by the {k} accumulation steps twice: every update is {k}x smaller than intended{via}",
        observation=f"over {len(acc)} steps with {k} backward passes each, backward() received {fmt(median)} x the loss function's "
                    f"output (one division gives 1/{k} = {fmt(1 / k)}; two give 1/{k * k} = {fmt(1 / (k * k))})",
        next_test="print the criterion's output next to the value you pass to backward(): the ratio should be 1/k (or 1 with accelerator.backward)",
        fix=("remove your own division by the accumulation steps: accelerator.backward(loss) already divides by gradient_accumulation_steps"
             if via else "divide the loss by the accumulation steps once"),
        measurements={"steps": len(acc), "micro_batches": k, "root_scale_median": median},
        step=acc[0]["step"], phase="backward")


@runtime_check("accelerate-backward-bypassed", tool="trace", category="training-loop", severity="error")
def accelerate_backward_bypassed_check(run: Any) -> Iterator[Found]:
    """``loss.backward()`` where accelerate expects ``accelerator.backward(loss)``.

    What it finds: the optimizer was prepared by accelerate with ``gradient_accumulation_steps`` above 1, yet no
    backward pass went through ``accelerator.backward``.
    Why it matters: ``accelerator.backward`` divides the loss by the accumulation steps (and applies the loss scale
    under fp16); bypassing it sums the micro-batch gradients, so every update is k times too large, and under fp16
    mixed precision the gradients are not scaled at all (small ones underflow to zero).
    How to confirm: search the loop for ``.backward(``: with accelerate it should read ``accelerator.backward(loss)``.
    What to do instead: call ``accelerator.backward(loss)`` instead of ``loss.backward()``.
    """
    if not accelerate_backward_bypassed(run.data):
        return
    amp = _amp(run)
    k = amp["accelerate"]["accumulation_steps"]
    yield Found(
        f"loss.backward() bypasses accelerator.backward(): with gradient_accumulation_steps={k} the micro-batch gradients are summed, "
        f"so each update is about {k}x too large",
        observation=f"the optimizer was prepared by accelerate with {k} accumulation steps; none of the "
                    f"{amp['backward_roots']['total']} backward passes went through accelerator.backward",
        next_test="grep the loop for '.backward(' and check it reads accelerator.backward(loss)",
        fix="replace loss.backward() by accelerator.backward(loss)",
        measurements={"accumulation_steps": k, "backward_passes": amp["backward_roots"]["total"]}, phase="backward")


@runtime_check("accelerate-optimizer-not-prepared", tool="trace", category="training-loop", severity="error")
def accelerate_optimizer_not_prepared(run: Any) -> Iterator[Found]:
    """The optimizer was not passed to ``accelerator.prepare`` while accelerate accumulates gradients.

    What it finds: backward passes went through ``accelerator.backward`` with ``gradient_accumulation_steps`` k
    above 1, but the optimizer stepped after every backward pass and never through accelerate's prepared optimizer.
    Why it matters: ``accelerator.backward`` divides each micro-batch loss by k, expecting the prepared optimizer to
    skip the steps between gradient syncs; a raw optimizer steps on every micro-batch instead, so each update is k
    times smaller than intended and there is no accumulation at all (and no loss scaling or device placement of the
    optimizer state).
    How to confirm: ``print(type(optimizer))``: a prepared one is accelerate's ``AcceleratedOptimizer``.
    What to do instead: ``model, optimizer, loader = accelerator.prepare(model, optimizer, loader)`` and use the
    returned optimizer in the loop.
    """
    amp = _amp(run)
    roots = amp.get("backward_roots") or {}
    k = roots.get("accumulation_steps", 1)
    if amp.get("accelerate") or not roots.get("accelerate") or k <= 1:
        return
    sequences = run.data.get("sequences", [])
    per_step = [s.count("B") for s in sequences if "S" in s]
    if len(per_step) < 2 or sorted(per_step)[len(per_step) // 2] != 1:
        return
    yield Found(
        f"the optimizer is not the one accelerator.prepare returned: it steps after every micro-batch while accelerator.backward divides "
        f"each loss by gradient_accumulation_steps={k}, so every update is {k}x smaller and nothing accumulates",
        observation=f"{roots['accelerate']} backward pass(es) went through accelerator.backward (accumulation steps {k}); "
                    f"the optimizer stepped after every single one and never through accelerate's prepared optimizer",
        next_test="print(type(optimizer)) in the loop: a prepared optimizer is accelerate's AcceleratedOptimizer",
        fix="pass the optimizer to accelerator.prepare(model, optimizer, ...) and use the returned optimizer in the loop",
        measurements={"accumulation_steps": k, "backward_per_step": per_step[:20]}, phase="optimizer")

"""Every ``trace`` check: one decorated function each, turning the trace observer's measurements into findings.

The child (:mod:`mlsleuth.runtime.child.trace_observer`) only measures; each
function here reads those measurements (:class:`TraceRun`) and yields what it
found, with the thresholds of :mod:`mlsleuth.runtime.thresholds`. The
decorator (:func:`mlsleuth.runtime.registry.runtime_check`) carries the check's
id, category, severity and documentation. Import-light: no torch here.
"""

from __future__ import annotations

import math
import os
import statistics
from collections.abc import Iterator
from functools import cached_property
from typing import Any

from mlsleuth.runtime import thresholds as T
from mlsleuth.runtime.common import decode_non_finite, fmt, group_by_module
from mlsleuth.runtime.registry import Found, runtime_check
from mlsleuth.runtime.trace.locations import site_location
from mlsleuth.runtime.trace.rl_signs import loss_trend_not_applicable

LOSS_LABEL = {"cross_entropy": "F.cross_entropy / nn.CrossEntropyLoss", "nll_loss": "F.nll_loss / nn.NLLLoss",
              "binary_cross_entropy": "F.binary_cross_entropy / nn.BCELoss",
              "binary_cross_entropy_with_logits": "F.binary_cross_entropy_with_logits / nn.BCEWithLogitsLoss"}
LEGEND = "F forward, B backward, Z zero_grad, S optimizer.step, L scheduler.step"


class TraceRun:
    """What the trace observer measured in one run (``payload["observers"]["trace"]``), and where it ran.

    ``command`` re-runs the trace (for next_test text).
    """

    def __init__(self, data: dict[str, Any], *, path: str | None, command: str) -> None:
        self.data = decode_non_finite(data)  # the child writes NaN/Inf as strings
        self.path = path
        self.command = command

    def location_defaults(self) -> dict[str, Any]:
        return {"path": self.path}

    @cached_property
    def params(self) -> list[dict]:
        return self.data.get("params", [])

    @cached_property
    def steps(self) -> int:
        return max((p.get("steps_seen", 0) for p in self.params), default=0)

    @cached_property
    def sequences(self) -> list[str]:
        return self.data.get("sequences", [])

    @cached_property
    def live(self) -> list[dict]:
        """Parameters with requires_grad, when the per-parameter gradient checks apply (else empty)."""
        if not self.params or self.steps == 0:
            return []
        if self.data.get("misplaced_zero_grad"):
            return []  # gradients are wiped before each step: the per-parameter gradient checks would only echo that
        return [p for p in self.params if p["requires_grad"]]


def _mod(name: str | None) -> str | None:
    return name if name else None


def _zero_note(s: dict) -> str:
    return "(all exactly 0)" if s["all_zero"] else f"(max |w| {fmt(s['max_abs'])})"


def _by_module(run: TraceRun, flagged: list[dict], message: str, obs_fn, next_test: str, fix: str) -> Iterator[Found]:
    """One finding per shallowest module whose parameters are all flagged (at most 10)."""
    all_pm = [(p["name"] or "?", p["module"] or "") for p in run.params]
    for module, names in group_by_module([(p["name"] or "?", p["module"] or "") for p in flagged], all_pm)[:10]:
        yield Found(message.format(module=module or "the whole model"),
                    observation=obs_fn(module, names), next_test=next_test, fix=fix,
                    measurements={"parameters": names[:50], "steps": run.steps},
                    module=module if module else "(model)", parameter=names[0] if len(names) == 1 else None, phase="backward")


def _update_ratio(run: TraceRun, low: bool) -> Iterator[Found]:
    """Weight matrices whose median per-step ||dW|| / ||W|| lies below (``low``) or above the healthy band."""
    if checks_amp.gradients_still_scaled(run.data):
        return  # the ratios reflect the loss scale, not the learning rate (clip-on-scaled-gradients names the cause)
    loss_falls = _loss_falls(run)
    for p in run.live:
        r = p.get("update_ratio_median")
        if r is None or len(p["shape"]) < 2 or p["param_norm0"] == 0 or not p.get("changed") and r == 0:
            continue
        if p["grad_zero_steps"] + p["grad_none_steps"] == p["steps_seen"]:
            continue
        if (r < T.UPDATE_RATIO_LOW) if low else (r > T.UPDATE_RATIO_HIGH):
            severity, evidence = None, ""
            if not low:
                growing = _ratios_grow(p["update_ratios"])
                if not growing and loss_falls:  # large but not growing, and the loss goes down: an early phase can look like this
                    severity = "info"
                    evidence = "; the ratio is not growing and the loss is falling, so this may be a benign early phase (momentum, warmup-free start)"
                else:
                    evidence = ("; the ratio grows over the steps" if growing else "") + ("; the loss is not falling" if not loss_falls else "")
            yield Found(
                (f"updates of {p['name']} are tiny relative to the weights: the learning rate is probably far too small for this layer"
                 if low else f"each update changes {p['name']} by a large fraction of its size: the learning rate is probably too large"),
                observation=f"median ||dW||/||W|| per step = {fmt(r)} over {p['steps_seen']} step(s) (healthy is around {fmt(T.UPDATE_RATIO_HEALTHY)}; "
                            f"flagged {'below' if low else 'above'} {fmt(T.UPDATE_RATIO_LOW if low else T.UPDATE_RATIO_HIGH)}); ||W|| at start {fmt(p['param_norm0'])}{evidence}",
                next_test="run a short learning-rate range test (mlsleuth diagnose FILE:FUNCTION --lr-range) or retry with the LR scaled by 10x towards the healthy ratio and compare the loss after the same number of steps",
                fix=("raise the learning rate (by about the factor separating the ratio from 1e-3)" if low
                     else "lower the learning rate, add warmup, or clip gradients"),
                measurements={"update_ratio_median": r, "update_ratios": p["update_ratios"][:20]},
                module=p["module"] or "(model)", parameter=p["name"], phase="optimizer", severity=severity)


def _ratios_grow(ratios: list) -> bool:
    """Whether the update ratios of the last third are more than twice those of the first third (medians)."""
    vals = [r for r in ratios if isinstance(r, (int, float))]
    if any(not math.isfinite(r) for r in vals):
        return True
    if len(vals) < 3:
        return False
    k = len(vals) // 3
    head, tail = sorted(vals[:k])[k // 2], sorted(vals[-k:])[k // 2]
    return tail > 2 * head


def _loss_falls(run: TraceRun) -> bool:
    """The training loss stayed finite and its last third is below its first third."""
    if run.data.get("non_finite_loss"):
        return False
    losses = run.data.get("losses", [])
    if any(not (isinstance(v, (int, float)) and math.isfinite(v)) for v in losses):
        return False
    if len(losses) < 3:
        return False
    k = len(losses) // 3
    return sum(losses[-k:]) / k < sum(losses[:k]) / k


def _first_input_stats(run: TraceRun) -> dict | None:
    """The first batch's statistics, when they are floating point (integer inputs such as token ids are exempt)."""
    st = run.data.get("input_stats")
    return st if st and not st.get("integer") else None


def _finite_inputs(run: TraceRun) -> dict | None:
    st = _first_input_stats(run)
    return st if st and not (st.get("nan") or st.get("inf")) and "max" in st else None


# -- call sequence ---------------------------------------------------------------------------
@runtime_check("zero-grad-missing", tool="trace", category="training-loop", severity="error")
def zero_grad_missing(run: TraceRun) -> Iterator[Found]:
    """Gradients accumulate across optimizer steps.

    What it finds: at the first backward() of an optimizer step, parameters still hold the non-zero gradients of
    the previous step. Measured at runtime, so it also catches zero_grad() called on the wrong object (another
    model or optimizer) and is not fooled by deliberate accumulation over several backward passes per step.
    Why it matters: each step then follows the sum of all past gradients, an ever-growing stale direction; training
    looks unstable or diverges and nothing in the code looks wrong.
    How to confirm: print one parameter's grad norm right before backward() on two consecutive steps; it should be
    0 or None at the start of each step.
    What to do instead: call optimizer.zero_grad() once per optimizer step, before backward() (or right after step()).
    """
    d, seqs = run.data, run.sequences
    stale = d.get("stale_grad_steps", [])
    if stale:
        first = stale[0]
        yield Found(
            "gradients accumulate across optimizer steps: zero_grad() is missing (or called on an object that does not own these parameters)",
            observation=f"at the first backward of step {first['step']}, {first['count']} optimizer parameter(s) still held the previous step's "
                        f"non-zero gradients (e.g. {', '.join(p for p in first['params'] if p) or 'unnamed'}); this happened on "
                        f"{d.get('stale_grad_step_count', len(stale))} step(s). Call sequence per step ({LEGEND}): {' | '.join(seqs[:4])}",
            next_test="print(p.grad.norm()) for one parameter right before loss.backward() on two consecutive steps: it should be 0 or None",
            fix="call optimizer.zero_grad() once per step, before loss.backward() (or after optimizer.step())",
            measurements={"steps_with_stale_grads": d.get("stale_grad_step_count"), "sequences": seqs[:10]},
            step=first["step"], phase="backward", parameter=first["params"][0] if first["params"] else None)


@runtime_check("zero-grad-before-step", tool="trace", category="training-loop", severity="error")
def zero_grad_before_step(run: TraceRun) -> Iterator[Found]:
    """zero_grad() runs between backward() and step().

    What it finds: in the observed call order of a step, a zero_grad() comes after the last backward() and before
    optimizer.step().
    Why it matters: the optimizer steps with all-zero gradients, so the weights never move (Adam and SGD with weight
    decay or momentum still drift, which hides the bug); the loss stays flat.
    How to confirm: sum the absolute gradients just before optimizer.step(): it is 0.
    What to do instead: order each step zero_grad, forward, backward, step.
    """
    seqs = run.sequences
    mis = run.data.get("misplaced_zero_grad", [])
    if mis:
        yield Found(
            "zero_grad() runs between backward() and step(): the optimizer steps with zero gradients, so nothing learns",
            observation=f"on step(s) {', '.join(map(str, mis[:5]))} the call order was {seqs[mis[0]] if mis[0] < len(seqs) else '?'} ({LEGEND}): a Z after the last B and before S",
            next_test="print(sum(p.grad.abs().sum() for p in model.parameters() if p.grad is not None)) just before optimizer.step(): it is 0",
            fix="order each step as zero_grad() -> forward -> loss.backward() -> optimizer.step()",
            measurements={"steps": mis[:20], "sequences": seqs[:10]}, step=mis[0], phase="optimizer")


@runtime_check("step-without-backward", tool="trace", category="training-loop", severity="warning")
def step_without_backward(run: TraceRun) -> Iterator[Found]:
    """optimizer.step() without a backward() since the previous step.

    What it finds: an optimizer step with no backward pass since the previous step (closures that call backward
    inside step(), as LBFGS needs, count as a backward).
    Why it matters: the step reuses stale gradients, or none; usually backward() sits in the wrong branch or loop.
    How to confirm: count backward() and step() calls per loop iteration.
    What to do instead: call loss.backward() before each step, or step only after the accumulated backward passes.
    """
    seqs = run.sequences
    nob = run.data.get("step_without_backward", [])
    if nob:
        yield Found(
            "optimizer.step() ran with no backward() since the previous step: that step used stale or no gradients",
            observation=f"no backward between steps on step(s) {', '.join(map(str, nob[:5]))}; sequence {seqs[nob[0]] if nob[0] < len(seqs) else '?'} ({LEGEND})",
            next_test="count loss.backward() and optimizer.step() calls per iteration of the loop (they should match, or backward should be more frequent with accumulation)",
            fix="call loss.backward() before each optimizer.step(), or step only after the accumulated backward passes",
            measurements={"steps": nob[:20]}, step=nob[0], phase="optimizer")


@runtime_check("optimizer-rebuilt-each-step", tool="trace", category="training-loop", severity="error")
def optimizer_rebuilt_each_step(run: TraceRun) -> Iterator[Found]:
    """A new optimizer is built for every step.

    What it finds: on most traced steps a different optimizer object steps the same parameters as the one before it,
    and the optimizer keeps per-parameter state (momentum buffers, Adam's moment estimates).
    Why it matters: every rebuild throws that state away. Adam then takes its first, bias-corrected step on every
    batch, which behaves like sign descent at the full learning rate; SGD with momentum loses its momentum. The run
    trains, but not with the algorithm configured.
    Also found when it is rebuilt over exactly the same parameters at a fixed cadence, at least
    {T.REBUILT_OPTIMIZER_MIN_REPLACEMENTS} times (a function that trains a few steps and builds its optimizer on each
    call); stages that rebuild it at irregular points or over a changed parameter set are not flagged.
    How to confirm: print(id(optimizer)) inside the training loop: it changes on every iteration.
    What to do instead: build the optimizer (and its scheduler) once, before the loop; rebuild it only when the set of
    trained parameters changes, for a new training stage.
    """
    steps = run.steps
    opt = run.data.get("optimizer") or {}
    replaced = opt.get("replacement_count", 0)
    every_step = replaced >= T.REBUILT_OPTIMIZER_FRACTION * (steps - 1)
    same = [r["step"] for r in opt.get("rebuilds", []) if r.get("same_parameters")]
    gaps = {b - a for a, b in zip(same, same[1:])}
    periodic = len(same) >= T.REBUILT_OPTIMIZER_MIN_REPLACEMENTS and len(gaps) == 1  # same parameters, a fixed cadence
    if steps >= T.REBUILT_OPTIMIZER_MIN_STEPS and opt.get("stateful") and (every_step or periodic):
        first = (opt.get("replacements") or [None])[0]
        if not every_step:
            gap = next(iter(gaps))
            yield Found(
                f"a new {opt.get('type') or 'optimizer'} over the same parameters is built every {gap} steps (each call of a function that trains "
                f"{gap} steps?): its momentum / moment estimates are thrown away each time",
                observation=f"over {steps} traced steps a new optimizer object took over exactly the same parameters at steps "
                            f"{', '.join(map(str, same[:8]))}; the {opt.get('type')} keeps per-parameter state that each rebuild discards",
                next_test="print(id(optimizer)) where the optimizer steps: a new value every few steps confirms it",
                fix="build the optimizer once (e.g. in __init__ of the object that trains) and reuse it across calls",
                measurements={"steps": steps, "rebuild_steps": same[:20], "every": gap, "optimizer": opt.get("type")},
                step=same[0], phase="optimizer")
            return
        yield Found(
            f"a new {opt.get('type') or 'optimizer'} is built for (nearly) every step: its momentum / moment estimates are thrown away each time, so it never runs as configured",
            observation=f"over {steps} traced steps a different optimizer object took over the same parameters {replaced} time(s) (first at step {first}); "
                        f"the {opt.get('type')} keeps per-parameter state that each rebuild discards",
            next_test="print(id(optimizer)) inside the training loop: a new value every iteration confirms it",
            fix="construct the optimizer (and its scheduler) once before the training loop",
            measurements={"steps": steps, "replacements": replaced, "optimizer": opt.get("type")},
            step=first, phase="optimizer")


@runtime_check("loss-target-broadcast", tool="trace", category="loss", severity="error")
def loss_target_broadcast(run: TraceRun) -> Iterator[Found]:
    """A regression loss broadcasts its input against a target of another shape.

    What it finds: F.mse_loss / l1_loss / smooth_l1_loss / huber_loss (or their nn modules) called with an input and a
    target whose shapes differ and broadcast to a larger tensor, such as predictions of shape (N, 1) against targets
    of shape (N,), which broadcast to (N, N).
    Why it matters: the loss compares every prediction with every target, not each with its own. It still runs and
    still decreases (towards predicting the batch mean), so the model looks as if it trains but cannot fit the
    data. PyTorch prints a UserWarning once, easily lost in the log.
    How to confirm: print(outputs.shape, targets.shape) right before the loss.
    What to do instead: make the shapes equal: outputs.squeeze(-1), or targets.unsqueeze(-1) / targets.view_as(outputs).
    """
    for fname, rec in run.data.get("loss_calls", {}).items():
        bc = rec.get("broadcast")
        if bc:
            shapes = f"input {tuple(bc['input_shape'])} against target {tuple(bc['target_shape'])}"
            yield Found(
                f"{fname} broadcasts its {shapes} to {tuple(bc['broadcast_shape'])}: every prediction is compared with every target, so the model can only learn the batch mean",
                observation=f"first seen at step {bc.get('step')}{' during evaluation' if not bc.get('grad_enabled') else ''}: {shapes} -> {tuple(bc['broadcast_shape'])}",
                next_test="print(outputs.shape, targets.shape) right before the loss call",
                fix="make the shapes equal: outputs.squeeze(-1), or targets.view_as(outputs)",
                measurements=bc, step=bc.get("step"), phase="loss", module=bc.get("where"))


@runtime_check("scheduler-step-before-optimizer-step", tool="trace", category="training-loop", severity="warning")
def scheduler_step_before_optimizer_step(run: TraceRun) -> Iterator[Found]:
    """The LR scheduler stepped before the first optimizer step.

    What it finds: scheduler.step() observed before any optimizer.step() of the run.
    Why it matters: since PyTorch 1.1 the schedule advances on scheduler.step(), so calling it first skips the first
    value of the schedule (warmup starts late, step decays come one step early).
    How to confirm: print scheduler.get_last_lr() before the first optimizer.step().
    What to do instead: call scheduler.step() after optimizer.step().
    """
    seqs = run.sequences
    if run.data.get("scheduler_before_step"):
        yield Found(
            "the LR scheduler stepped before the first optimizer.step(): the first value of the schedule is skipped",
            observation=f"scheduler.step() was called before any optimizer.step(); first step's sequence: {seqs[0] if seqs else '?'} ({LEGEND})",
            next_test="print(scheduler.get_last_lr()) before the first optimizer.step(): it is already the second value of the schedule",
            fix="call scheduler.step() after optimizer.step() (per step or per epoch, as the schedule intends)",
            step=0, phase="optimizer")


@runtime_check("lr-collapse", tool="trace", category="hyperparameter", severity="warning")
def lr_collapse(run: TraceRun) -> Iterator[Found]:
    """The learning rate collapses towards zero within the traced steps.

    What it finds: for a parameter group of the primary optimizer, the learning rate at the end of the trace is at
    most {T.LR_COLLAPSE_FACTOR:g} times the largest value seen (warmups that rise are not flagged).
    Why it matters: a schedule that reaches ~0 within the first few dozen steps (a per-batch step with per-epoch
    parameters, gamma too small, T_max in epochs instead of steps) freezes training while the loop keeps running.
    How to confirm: print scheduler.get_last_lr() every step for one epoch.
    What to do instead: step the scheduler at the cadence its parameters assume, or express step_size/T_max in steps.
    """
    lrs = run.data.get("lr", [])
    if len(lrs) < 2:
        return
    for g in range(len(lrs[0])):
        traj = [row[g] for row in lrs if g < len(row) and isinstance(row[g], (int, float))]
        if len(traj) < 2:
            continue
        peak, last = max(traj), traj[-1]
        if peak > 0 and last <= T.LR_COLLAPSE_FACTOR * peak:
            at = next(i for i, v in enumerate(traj) if v <= T.LR_COLLAPSE_FACTOR * peak)
            yield Found(
                "the learning rate collapsed towards 0 within the traced steps: the schedule stops training long before it should end",
                observation=f"param group {g}: LR went from {fmt(traj[0])} (peak {fmt(peak)}) to {fmt(last)} after {len(traj)} steps; "
                            f"it fell below {fmt(T.LR_COLLAPSE_FACTOR)} x peak at step {at}",
                next_test="print(scheduler.get_last_lr()) each step for one epoch; check step_size/gamma/T_max against the number of scheduler.step() calls (per batch vs per epoch)",
                fix="step the scheduler as often as its parameters assume (often once per epoch), or recompute step_size / T_max in steps",
                measurements={"param_group": g, "lr": traj[:50]}, step=at, phase="optimizer")


# -- gradients and updates -------------------------------------------------------------------
@runtime_check("param-no-grad", tool="trace", category="architecture", severity="warning")
def param_no_grad(run: TraceRun) -> Iterator[Found]:
    """Parameters in the optimizer never receive a gradient.

    What it finds: parameters with requires_grad=True that are in an optimizer but whose .grad stayed None at every
    traced optimizer step; reported at the shallowest module whose parameters are all affected (e.g. 'encoder').
    A parameter frozen (requires_grad=False) for every traced step is not reported; a module that runs no forward in the
    traced window after the first step (a head used only by a later stage) is reported as info.
    Why it matters: the module is disconnected from the loss - a .detach(), .item(), .data, torch.no_grad() or
    numpy round trip cuts the graph, or the module is simply never used - so it stays at its initial weights.
    How to confirm: after loss.backward(), list [n for n, p in model.named_parameters() if p.grad is None].
    What to do instead: remove the graph cut on the path to the loss, or leave the unused module out.
    """
    steps = run.steps
    # steps where the parameter was frozen (requires_grad=False) expect no gradient: only the others count
    none = [p for p in run.live if p.get("frozen_steps", 0) < p["steps_seen"] and p["grad_none_steps"] == p["steps_seen"]]
    # a module that ran no forward after the first step is idle in this window (a later stage's head), not cut off
    watch = run.data.get("idle_watch") or {}
    idle = [p for p in none if watch.get(p["module"]) == 0]
    if idle:
        none = [p for p in none if p not in idle]
        for found in _by_module(
                run, idle,
                "parameters of {module} are in the optimizer but got no gradient, and the module ran no forward in the traced window: "
                "it is unused here (perhaps by a later stage of the script), so nothing can be said about its graph yet",
                lambda m, n: f"{len(n)} parameter(s) ({', '.join(n[:4])}{'...' if len(n) > 4 else ''}) had .grad None at every one of "
                             f"{steps} optimizer step(s); the module's forward was not called after the first step",
                "trace more steps (mlsleuth trace --steps N) to reach the stage that uses it, or check that the script ever calls it",
                "nothing if a later stage uses it; else drop it from the model/optimizer"):
            found.severity = "info"
            yield found
    yield from _by_module(
        run, none,
        "parameters of {module} are in the optimizer but never receive a gradient: they are disconnected from the loss (detached, unused, or behind a non-differentiable op)",
        lambda m, n: f"{len(n)} parameter(s) ({', '.join(n[:4])}{'...' if len(n) > 4 else ''}) had .grad None at every one of {steps} optimizer step(s)",
        "loss.backward(); print([n for n, p in model.named_parameters() if p.grad is None]); then look for .detach(), .item(), torch.no_grad() or .data on the path from this module to the loss",
        "remove the detach/no_grad on the path, or drop the module from the model/optimizer if it is intentionally unused")


@runtime_check("grad-all-zero", tool="trace", category="architecture", severity="warning", role="symptom")
def grad_all_zero(run: TraceRun) -> Iterator[Found]:
    """Gradients that are exactly zero on every step.

    What it finds: parameters whose gradient exists but is all zeros at every traced step.
    Why it matters: something upstream blocks the signal: dead ReLUs after the layer, a zero multiplier or mask, a
    constant output, or a zero-initialised layer feeding only zero-initialised layers.
    How to confirm: register a hook on the module's output tensor and print the incoming gradient norm.
    What to do instead: fix what zeroes the signal (lower LR or LeakyReLU for dead units, random init, fix the mask).
    """
    steps = run.steps
    zero = [p for p in run.live if p["grad_none_steps"] < p["steps_seen"] and p["grad_zero_steps"] + p["grad_none_steps"] == p["steps_seen"]]
    yield from _by_module(
        run, zero,
        "parameters of {module} receive gradients that are exactly zero on every step: something upstream blocks the signal (dead activations, a zero multiplier, a constant output)",
        lambda m, n: f"{len(n)} parameter(s) ({', '.join(n[:4])}{'...' if len(n) > 4 else ''}) had an all-zero gradient at every one of {steps} step(s)",
        "register a hook on the module's output (out.register_hook(print)) and check whether the incoming gradient is zero or the module's own activations are",
        "fix what zeroes the signal: dead ReLUs (lower LR, LeakyReLU), an all-zero mask, or a weight initialised to exactly zero feeding it")


@runtime_check("param-not-updated", tool="trace", category="training-loop", severity="warning")
def param_not_updated(run: TraceRun) -> Iterator[Found]:
    """Parameters with gradients whose values never change.

    What it finds: parameters with non-zero gradients that were bit-identical before and after every traced step.
    A parameter whose gradient is negligible next to the rest of the model's (root-mean-square below
    {T.NEGLIGIBLE_GRAD_SHARE:g} of the median parameter's, e.g. the bias of a layer feeding batch-norm, which the
    normalisation cancels) is not flagged: plain SGD rounds such a step away.
    Why it matters: the optimizer does not update them: their group has lr 0, or the optimizer holds other tensors
    (copies made before .to(device), or a model rebuilt after the optimizer was created).
    How to confirm: print(optimizer.param_groups) and compare p.clone() before and after optimizer.step().
    What to do instead: give the group a non-zero LR; create the optimizer after the model is final and on its device.
    """
    steps = run.steps
    frozen_lr = [p for p in run.live if not p.get("changed") and p["grad_zero_steps"] + p["grad_none_steps"] < p["steps_seen"]
                 and not _low_precision_explained(p) and not _negligible_gradient(run, p)]
    yield from _by_module(
        run, frozen_lr,
        "parameters of {module} have non-zero gradients but their values never changed: the optimizer does not update them (learning rate 0 for their group?)",
        lambda m, n: f"{len(n)} parameter(s) ({', '.join(n[:4])}) were bit-identical before and after each of {steps} optimizer step(s) despite non-zero gradients",
        "print(optimizer.param_groups) and check lr for the group holding these parameters; compare p.clone() before and after optimizer.step()",
        "give the group a non-zero learning rate, or make sure the optimizer holds these very tensors (not copies)")


def _grad_rms(p: dict) -> float | None:
    g = p.get("grad_norm_median")
    return g / math.sqrt(p["numel"]) if isinstance(g, (int, float)) and math.isfinite(g) and p.get("numel") else None


def _negligible_gradient(run: TraceRun, p: dict) -> bool:
    """The parameter's gradient is tiny next to the model's typical one (a bias that batch-norm cancels)."""
    own = _grad_rms(p)
    others = sorted(r for r in (_grad_rms(q) for q in run.live) if r)
    if own is None or not others:
        return False
    return own < T.NEGLIGIBLE_GRAD_SHARE * others[len(others) // 2]


@runtime_check("update-ratio-too-small", tool="trace", category="hyperparameter", severity="warning", role="symptom")
def update_ratio_too_small(run: TraceRun) -> Iterator[Found]:
    """Updates far too small relative to the weights.

    What it finds: weight matrices whose median per-step update-to-parameter ratio ||dW|| / ||W|| is below
    {T.UPDATE_RATIO_LOW:g}; the practitioners' rule of thumb for a healthy ratio is about {T.UPDATE_RATIO_HEALTHY:g}.
    Why it matters: a hundred times below the healthy ratio the layer barely moves; the loss looks flat and the
    run seems to "not learn" although the code is right: the learning rate is too small for this layer.
    How to confirm: re-run a few steps with the LR 10x larger and compare the loss, or run an LR range test.
    What to do instead: raise the learning rate towards the healthy ratio; check per-group LRs and LR schedules.
    """
    yield from _update_ratio(run, low=True)


@runtime_check("update-ratio-too-large", tool="trace", category="hyperparameter", severity="warning", role="symptom")
def update_ratio_too_large(run: TraceRun) -> Iterator[Found]:
    """Updates too large relative to the weights.

    What it finds: weight matrices whose median per-step ||dW|| / ||W|| exceeds {T.UPDATE_RATIO_HIGH:g}, a hundred
    times the healthy ~{T.UPDATE_RATIO_HEALTHY:g}.
    Why it matters: each step rewrites a tenth of the layer; training oscillates, diverges, or kills ReLUs.
    Large early ratios can be benign (momentum SGD, the first steps from initialisation): when the ratio does not
    grow over the traced steps and the loss falls, the finding is info; it is a warning when the ratio grows, the loss
    does not fall, or the loss became non-finite.
    How to confirm: re-run with the LR 10x smaller; the loss curve should become smoother and reach lower values.
    What to do instead: lower the learning rate, add warmup, or clip gradients.
    """
    yield from _update_ratio(run, low=False)


@runtime_check("vanishing-gradients", tool="trace", category="architecture", severity="warning", role="symptom")
def vanishing_gradients(run: TraceRun) -> Iterator[Found]:
    """Gradients shrink from the last layer to the first.

    What it finds: the median gradient RMS of the first weight layer is below {T.VANISHING_GRAD_RATIO:g} times that
    of the last weight layer (at least three weight layers).
    Why it matters: with plain SGD the first layers learn about that many times more slowly; deep stacks of
    saturating activations or poor init cause it.
    How to confirm: print each layer's gradient norm after one backward and find where it drops.
    What to do instead: ReLU/GELU, normalisation layers, residual connections, Kaiming/Xavier init.
    """
    if checks_amp.gradients_still_scaled(run.data):
        return
    weights = [p for p in run.live if len(p["shape"]) >= 2 and isinstance(p["grad_norm_median"], (int, float))
               and math.isfinite(p["grad_norm_median"]) and p["numel"] > 0]
    if len(weights) >= 3:
        first, last = weights[0], weights[-1]

        def rms(p):
            return p["grad_norm_median"] / math.sqrt(p["numel"])

        if rms(last) > 0 and rms(first) / rms(last) < T.VANISHING_GRAD_RATIO and first["grad_norm_median"] > 0:
            yield Found(
                f"gradients shrink on the way back: the first layer ({first['name']}) gets a gradient far smaller than the last ({last['name']})",
                observation=f"median gradient RMS {fmt(rms(first))} at {first['name']} vs {fmt(rms(last))} at {last['name']} "
                            f"(ratio {fmt(rms(first) / rms(last))}, flagged below {fmt(T.VANISHING_GRAD_RATIO)})",
                next_test="print the gradient norm of every layer after one backward (for n, p in model.named_parameters(): print(n, p.grad.norm())) and see where it drops",
                fix="use ReLU/GELU instead of saturating activations, add normalisation or residual connections, use Kaiming/Xavier init",
                measurements={"grad_rms": {p["name"]: rms(p) for p in weights[:50]}},
                module=first["module"] or "(model)", parameter=first["name"], phase="backward")


@runtime_check("dead-relu", tool="trace", category="architecture", severity="warning")
def dead_relu(run: TraceRun) -> Iterator[Found]:
    """Most units of a ReLU are dead.

    What it finds: an nn.ReLU module where at least {pct.DEAD_RELU_FRACTION}% of output positions are zero
    for every sample of every traced training batch (functional F.relu calls are not seen).
    Why it matters: a dead unit passes no gradient, so it cannot recover; the layer loses that share of its
    capacity. Typical causes: a large negative bias, a too-high learning rate, unnormalised inputs.
    How to confirm: print((h > 0).float().mean(0)) for the layer's output over a batch.
    What to do instead: lower the LR, zero the biases with Kaiming init, normalise inputs, or use LeakyReLU/GELU.
    """
    for name, rec in sorted(run.data.get("activations", {}).items()):
        if rec.get("kind") == "relu" and rec.get("dead_fraction", 0) >= T.DEAD_RELU_FRACTION:
            yield Found(
                f"most units of ReLU '{name}' are dead: they output 0 for every sample, so they pass no gradient and cannot recover",
                observation=f"{fmt(100 * rec['dead_fraction'])}% of {rec.get('units')} unit positions were 0 on every sample of all {rec['forwards']} traced training batches "
                            f"(flagged at {int(100 * T.DEAD_RELU_FRACTION)}%)",
                next_test=f"print((act > 0).float().mean(0)) for the input of '{name}' on one batch; inspect the preceding layer's bias and weight scale",
                fix="lower the learning rate, initialise biases at 0 with Kaiming init, or use LeakyReLU/GELU",
                measurements={"dead_fraction": rec["dead_fraction"], "units": rec.get("units"), "batches": rec["forwards"]},
                module=name, phase="forward")


@runtime_check("activation-saturation", tool="trace", category="architecture", severity="warning", role="symptom")
def activation_saturation(run: TraceRun) -> Iterator[Found]:
    """Tanh/sigmoid activations are saturated.

    What it finds: an nn.Tanh/nn.Sigmoid module where on average at least {pct.SATURATED_FRACTION}% of the
    outputs lie beyond |tanh| > 0.99 or outside sigmoid [0.01, 0.99], where the derivative is below about 0.02.
    Why it matters: saturated units pass almost no gradient; learning stalls in and below this layer.
    How to confirm: histogram the pre-activations; values beyond about +-3 are saturated.
    What to do instead: normalise inputs, lower the init scale, add normalisation before the activation.
    """
    for name, rec in sorted(run.data.get("activations", {}).items()):
        if rec.get("kind") in ("tanh", "sigmoid") and rec.get("saturated_fraction", 0) >= T.SATURATED_FRACTION:
            yield Found(
                f"{rec['type']} '{name}' is saturated: most outputs sit at the flat ends where the derivative is nearly 0",
                observation=f"{fmt(100 * rec['saturated_fraction'])}% of outputs were saturated on average over {rec['forwards']} traced batches "
                            f"(|tanh| > 0.99 or sigmoid outside [0.01, 0.99]; flagged at {int(100 * T.SATURATED_FRACTION)}%)",
                next_test=f"histogram the pre-activation input of '{name}': values beyond about +-3 mean saturation; check input scaling and the preceding layer's init",
                fix="normalise inputs, use a smaller init scale or a normalisation layer before the activation, or switch to ReLU/GELU",
                measurements={"saturated_fraction": rec["saturated_fraction"]}, module=name, phase="forward")


# -- loss ------------------------------------------------------------------------------------
@runtime_check("softmax-into-cross-entropy", tool="trace", category="loss", severity="error")
def softmax_into_cross_entropy(run: TraceRun) -> Iterator[Found]:
    """Cross-entropy is fed probabilities instead of logits.

    What it finds: every inspected call of F.cross_entropy / nn.CrossEntropyLoss received rows that are
    non-negative and sum to 1 - the output of a softmax (also reported by diagnose).
    Why it matters: cross_entropy applies log-softmax itself; a second softmax squeezes the inputs into [0, 1], so
    the loss can never approach 0, gradients flatten and training stalls around a high loss.
    How to confirm: print(outputs.sum(1)[:5]) before the loss: all ones.
    What to do instead: return raw logits from the model; apply softmax only for predictions.
    """
    ce = run.data.get("loss_calls", {}).get("cross_entropy")
    if ce and ce.get("probability_inputs") and ce["probability_inputs"] >= min(ce["calls"], 20):
        yield Found(
            "cross_entropy receives probabilities (softmax outputs), not logits: it applies log-softmax again, which flattens gradients and caps how confident the model can get",
            observation=f"on all {min(ce['calls'], 20)} inspected calls every row of the {ce.get('input_shape')} input was non-negative and summed to 1",
            next_test="print(outputs.sum(dim=1)[:5]) right before the loss: all ones means a softmax ran already",
            fix="remove the softmax from the model's forward (or use it only at inference); cross_entropy expects raw logits",
            measurements={"calls_inspected": min(ce["calls"], 20), "input_shape": ce.get("input_shape")},
            module=(ce.get("softmax_modules") or [None])[0] or "(model output)", step=ce.get("step"), phase="loss")


@runtime_check("nll-loss-on-logits", tool="trace", category="loss", severity="error")
def nll_loss_on_logits(run: TraceRun) -> Iterator[Found]:
    """NLL or CTC loss fed something other than log-probabilities.

    What it finds: F.nll_loss / nn.NLLLoss inputs whose logsumexp over classes (dim 1) is not 0, or F.ctc_loss /
    nn.CTCLoss inputs whose logsumexp over the last axis is not 0, on every inspected training call.
    Why it matters: neither loss normalises its input. nll_loss just picks -input[target]; on raw logits it rewards
    making the target logit large without normalisation, so the loss runs to minus infinity or learns nothing
    useful. ctc_loss sums the per-frame inputs along alignment paths as if they were log-probabilities: raising every
    score lowers the loss without making the label sequence more likely, so the loss falls while decoding stays wrong.
    How to confirm: print(torch.logsumexp(outputs, 1)[:5]) (CTC: over the last axis) - log-probabilities give 0.
    What to do instead: apply log_softmax over the class axis first, or use cross_entropy on logits (NLL).
    """
    calls = run.data.get("loss_calls", {})
    for fname, axis in (("nll_loss", "classes"), ("ctc_loss", "the last (class) axis")):
        rec = calls.get(fname)
        if not rec or not rec.get("non_log_prob_inputs") or rec["non_log_prob_inputs"] < min(rec["calls"], 20):
            continue
        dim = 1 if fname == "nll_loss" else -1
        yield Found(
            f"{fname} receives inputs that are not log-probabilities (raw logits or probabilities): it needs log_softmax first",
            observation=f"logsumexp over {axis} was up to {fmt(rec.get('max_abs_logsumexp'))} away from 0 on every inspected call "
                        f"({min(rec['calls'], 20)}; log-probabilities give exactly 0)",
            next_test=f"print(torch.logsumexp(outputs, dim={dim})[:5]) before the loss: log-probabilities give 0",
            fix=(f"apply F.log_softmax(logits, dim={dim}) before {fname}"
                 + (", or use cross_entropy on the logits" if fname == "nll_loss" else "")),
            module=_mod(rec.get("where")) or "(model output)", step=rec.get("step"), phase="loss")


@runtime_check("sigmoid-into-bce-with-logits", tool="trace", category="loss", severity="warning")
def sigmoid_into_bce_with_logits(run: TraceRun) -> Iterator[Found]:
    """BCE-with-logits fed values that already went through a sigmoid.

    What it finds: every inspected input of F.binary_cross_entropy_with_logits / nn.BCEWithLogitsLoss lies in [0, 1].
    Why it matters: the loss applies its own sigmoid, so predictions are squeezed into [0.5, 0.73]; gradients are
    tiny and the model cannot become confident.
    How to confirm: print(outputs.min(), outputs.max()) before the loss and look for a trailing sigmoid.
    What to do instead: drop the sigmoid from the model when using BCEWithLogitsLoss.
    """
    bce = run.data.get("loss_calls", {}).get("binary_cross_entropy_with_logits")
    if bce and bce.get("probability_inputs") and bce["probability_inputs"] >= min(bce["calls"], 20):
        yield Found(
            "binary_cross_entropy_with_logits receives values that all lie in [0, 1], as if a sigmoid already ran: the sigmoid is applied twice",
            observation=f"every element of the {bce.get('input_shape')} input was in [0, 1] on all inspected calls",
            next_test="look for torch.sigmoid / nn.Sigmoid at the end of the model; print(outputs.min(), outputs.max()) before the loss",
            fix="drop the sigmoid from the model when using BCEWithLogitsLoss (apply it only for predictions)",
            module="(model output)", step=bce.get("step"), phase="loss")


@runtime_check("label-out-of-range", tool="trace", category="data", severity="error")
def label_out_of_range(run: TraceRun) -> Iterator[Found]:
    """Labels outside the range the loss accepts.

    What it finds: class-index targets below 0 or at least the number of classes of the loss input (ignore_index
    excluded), or binary cross-entropy targets outside [0, 1] (also reported by diagnose).
    Why it matters: on CPU this raises an IndexError; on GPU it is a device-side assert or silent garbage; either way
    the output layer size and the label encoding disagree (1-based labels, a wrong num_classes).
    How to confirm: print(targets.min(), targets.max(), outputs.shape) for one batch.
    What to do instead: size the final layer to the number of classes and map labels to 0..C-1.
    """
    for fname, rec in run.data.get("loss_calls", {}).items():
        if rec.get("out_of_range"):
            classes = rec.get("classes")
            if fname in ("cross_entropy", "nll_loss"):
                seen = f"labels ranged {rec.get('target_min')}..{rec.get('target_max')} but the input has {classes} classes (valid labels 0..{classes - 1 if classes else '?'})"
            else:
                seen = f"targets ranged {fmt(rec.get('target_min'))}..{fmt(rec.get('target_max'))}; binary cross-entropy needs targets in [0, 1]"
            binary = fname not in ("cross_entropy", "nll_loss")
            yield Found(
                ("binary cross-entropy targets fall outside [0, 1]: the loss has no minimum there and keeps pushing the logits "
                 "(a mask or label normalised like the inputs, or labels encoded as -1/+1)") if binary else
                "labels fall outside the range the loss accepts: the model's output size and the label encoding disagree",
                observation=f"{LOSS_LABEL.get(fname, fname)}: {seen} (first at step {rec.get('out_of_range_step')})",
                next_test=("print(targets.min(), targets.max(), targets.unique()[:10]) for one batch, and follow the targets back "
                           "through the dataset's transforms") if binary else
                          "print(targets.min(), targets.max(), outputs.shape) for one batch; compare with the number of classes in the dataset",
                fix=("map the targets into [0, 1]: keep input normalisation (Normalize, standardisation) off the targets, or "
                     "convert -1/+1 labels with (y + 1) / 2") if binary else
                    "set the final layer's output size to the number of classes, and map labels to 0..C-1 (e.g. subtract 1 from 1-based labels)",
                measurements={"target_min": rec.get("target_min"), "target_max": rec.get("target_max"), "classes": classes},
                module=_mod(rec.get("out_of_range_where")) or "(loss input)", step=rec.get("out_of_range_step"), phase="loss")


@runtime_check("initial-loss-high", tool="trace", category="loss", severity="warning", role="symptom")
def initial_loss_high(run: TraceRun) -> Iterator[Found]:
    """The loss at initialisation is far above ln C.

    What it finds: the first cross-entropy (C classes) or binary cross-entropy value is more than
    {T.INITIAL_LOSS_FACTOR:g} times ln C (ln 2 for binary) and at least {T.INITIAL_LOSS_MARGIN_NATS:g} nat above it
    (also reported by diagnose). It is info, not a warning, when the median of the last
    {T.RECOVERY_LAST_VALUES} traced values is already back below ln C: a bad start the run recovers from.
    Why it matters: a freshly initialised classifier predicts near-uniformly, so its loss starts at ln C (2.30 for 10
    classes). Much higher means confident wrong predictions from the start: unnormalised inputs, a bad init scale,
    or a loss/label mismatch; the first steps are then spent undoing the init.
    How to confirm: print the logits' std for the first batch; rescale the final layer by 0.01 and compare.
    What to do instead: normalise inputs, use default init, initialise the final layer small.
    """
    calls = run.data.get("loss_calls", {})
    for fname in ("cross_entropy", "binary_cross_entropy_with_logits", "binary_cross_entropy"):
        rec = calls.get(fname)
        if not rec or "first_value" not in rec or rec.get("reduction", "mean") != "mean" or rec.get("soft_targets"):
            continue
        if not rec.get("grad_enabled", True) or rec.get("out_of_range"):
            continue
        classes = rec.get("classes") if fname == "cross_entropy" else 2
        if not classes or classes < 2:
            continue
        expected = math.log(classes)
        value = rec["first_value"]
        if isinstance(value, (int, float)) and math.isfinite(value) and value > T.INITIAL_LOSS_FACTOR * expected and value - expected >= T.INITIAL_LOSS_MARGIN_NATS:
            recovered = _back_below(rec, expected)
            yield Found(
                "the loss at initialisation is far above what near-uniform predictions give: the output layer starts over-confident (bad init scale, unnormalised inputs, or a loss/label mismatch)"
                + (" (the run recovers: the loss is back below that level by the end of the traced steps)" if recovered else ""),
                observation=f"first {LOSS_LABEL.get(fname, fname)} value {fmt(value)} vs ln({classes}) = {fmt(expected)} expected for uniform predictions "
                            f"(flagged above {T.INITIAL_LOSS_FACTOR:g}x and {T.INITIAL_LOSS_MARGIN_NATS:g} nat over)"
                            + (f"; the last traced values are back below ln({classes})" if recovered else ""),
                severity="info" if recovered else None,
                next_test="print(outputs.std(), outputs.abs().max()) for the first batch: logits should be O(1); re-run with the last layer's weights scaled by 0.01",
                fix="normalise the inputs, use the default (Kaiming/Xavier) init, or initialise the final layer small",
                measurements={"initial_loss": value, "expected": expected, "classes": classes},
                module="(loss)", step=rec.get("first_value_step", 0), phase="loss")
        break


@runtime_check("non-finite-loss", tool="trace", category="numerical", severity="error", role="symptom")
def non_finite_loss(run: TraceRun) -> Iterator[Found]:
    """The loss became NaN or Inf.

    What it finds: the first traced step whose loss (the tensor passed to backward) is not finite; the trace stops there.
    The model's last training forward is then run again on the same inputs, and the first module to return NaN/Inf
    from finite inputs is named (or the loss computation, when the model's outputs were finite).
    Why it matters: one non-finite loss corrupts every parameter it reaches in the next update.
    How to confirm: run `mlsleuth nan SCRIPT` to localise the step, module and op where the first non-finite value appears.
    What to do instead: fix the producing op (log of 0, division by ~0, exp overflow, too-high LR); do not mask it
    with nan_to_num or skip the batch.
    """
    nf = run.data.get("non_finite_loss")
    if nf:
        origin = nf.get("origin") or {}
        module, where = "(loss)", ""
        birth = origin.get("birth") or {}
        if origin.get("module"):
            module = birth.get("module") or origin["module"]  # the submodule whose own method made it, if any
            where = (f"; run again on the same batch, module '{origin['module']}' ({origin.get('type')}) was the first to "
                     "return NaN/Inf from finite inputs")
            if birth.get("op"):
                where += (f", and its first non-finite value came from {birth['op']}"
                          + (f" in a method of '{birth['module']}'" if birth.get("module") else "")
                          + (f" at {os.path.basename(birth['path'])}:{birth['line']} ({birth.get('code')})" if birth.get("path") else ""))
        elif any(t.get("output_finite") for t in origin.get("tried") or []):
            where = "; run again on the same batch, the model's outputs were finite: the loss computation produced it"
        yield Found(
            "the loss became non-finite; the run was stopped there because every later update is corrupted"
            + (f" (born in module '{module}')" if origin.get("module") else ""),
            observation=f"loss = {nf['value']} at step {nf['step']}{where}",
            next_test=f"mlsleuth nan {run.path or 'SCRIPT'} (localises the step, module and op where the first NaN/Inf appears)",
            fix="fix the op that produces it (log of 0, division by ~0, exp overflow, too-high LR), do not mask it with nan_to_num",
            measurements=nf, module=module, step=nf["step"], phase="forward" if origin.get("module") else "loss",
            op=birth.get("op"), **site_location(run, birth))


def restart_period(losses: list[float]) -> int | None:
    """The block length when the loss falls within fixed-length blocks and jumps back up between them (the same
    data visited for several passes, then new data), else None. Needs at least three jumps, equally spaced at least
    three steps apart, and a fall on most steps inside the blocks."""
    ups = [i for i in range(1, len(losses)) if losses[i] > losses[i - 1]]
    if len(ups) < 3:
        return None
    gaps = {b - a for a, b in zip(ups, ups[1:])}
    if len(gaps) != 1:
        return None
    period = gaps.pop()
    if period < 3:
        return None  # a zigzag every other step is noise (or two alternating losses), not passes over one batch
    inside = [i for i in range(ups[0], len(losses)) if (i - ups[0]) % period]
    falling = sum(losses[i] < losses[i - 1] for i in inside)
    return period if inside and falling >= 0.8 * len(inside) else None


@runtime_check("loss-not-decreasing", tool="trace", category="training-loop", severity="warning", role="symptom")
def loss_not_decreasing(run: TraceRun) -> Iterator[Found]:
    """The training loss does not go down over the traced steps.

    What it finds: with at least {T.MIN_STEPS_FOR_TREND} traced steps, neither the median nor the mean loss over the last
    third of the steps is below the first third's (both must agree, so one odd step or a noisy flat stretch does not
    decide). A loss that falls within blocks of a fixed length and jumps back up between them (new data every block:
    PPO epochs over each rollout, a curriculum) is learning, and is not reported.
    Why it matters: a healthy setup lowers the loss within a few dozen steps; a flat loss points to a blocked
    pipeline: LR far too small, disconnected or frozen weights, labels unrelated to their inputs, or a broken loss.
    How to confirm: the overfit-one-batch test (`mlsleuth diagnose FILE:FUNCTION`).
    What to do instead: act on the other findings first; then check label/input alignment and the learning rate.
    """
    losses = [v for v in run.data.get("losses", []) if isinstance(v, (int, float)) and math.isfinite(v)]
    if loss_trend_not_applicable(run.data):
        return  # an RL objective need not go down: the RL checks read the episode returns instead
    if not run.data.get("non_finite_loss") and len(losses) >= T.MIN_STEPS_FOR_TREND:
        k = len(losses) // 3
        head, tail = statistics.median(losses[:k]), statistics.median(losses[-k:])
        mean_head, mean_tail = sum(losses[:k]) / k, sum(losses[-k:]) / k
        if tail >= head and mean_tail >= mean_head and restart_period(losses) is None:
            yield Found(
                "the training loss did not go down over the traced steps: learning is blocked (LR far too small, frozen or disconnected weights, labels unrelated to inputs, broken loss)",
                observation=f"median loss over the first {k} steps {fmt(head)}, over the last {k} steps {fmt(tail)} (means {fmt(mean_head)} "
                            f"and {fmt(mean_tail)}; {len(losses)} steps traced)",
                next_test="run the overfit-one-batch test (mlsleuth diagnose FILE:FUNCTION): a healthy model drives one fixed batch's loss near 0 in a few hundred steps",
                fix="act on the other findings of this report first; if none, check labels against inputs and try a 10x larger learning rate",
                measurements={"losses": losses[:100], "first_mean": head, "last_mean": tail},
                module="(loss)", step=len(losses) - 1, phase="loss")


@runtime_check("loss-at-label-prior", tool="trace", category="data", severity="warning", role="symptom")
def loss_at_label_prior(run: TraceRun) -> Iterator[Found]:
    """Cross-entropy stuck at the entropy of the labels.

    What it finds: over the last third of at least {T.MIN_STEPS_FOR_TREND} traced steps, the mean cross-entropy is not
    at least {pct.LABEL_PRIOR_MARGIN}% below the entropy of the class labels seen during the trace, and it has stopped
    going down (the last third is not clearly below the middle third). When this holds at the requested step count the
    trace watches up to {T.VERDICT_EXTRA_STEPS_FACTOR}x more steps (at most {T.VERDICT_EXTRA_STEPS_MAX}) before
    deciding; a loss still falling towards the prior is reported as info (a slow start, too early to tell).
    Why it matters: predicting the class frequencies alone scores exactly that entropy, with no look at the inputs.
    A model that cannot beat it has learned nothing from its inputs: labels shuffled apart from their inputs, inputs
    that carry no signal, or blocked learning. The loss may still go down a little (learning the frequencies), so
    "the loss decreases" does not rule this out. Very hard tasks can need more steps than the trace runs.
    How to confirm: overfit one fixed batch and compare training on real, shuffled and random inputs
    (`mlsleuth diagnose FILE:FUNCTION`); print a few input/label pairs after the data pipeline.
    What to do instead: keep inputs and labels aligned through every shuffle, augmentation and sort.
    """
    d = run.data
    ce = d.get("loss_calls", {}).get("cross_entropy")
    counts = [v for v in d.get("class_counts", {}).values() if v]
    if d.get("non_finite_loss") or not ce or ce.get("soft_targets") or ce.get("reduction", "mean") != "mean" or ce.get("out_of_range"):
        return
    values = [v for v in ce.get("values", []) if isinstance(v, (int, float)) and math.isfinite(v)]
    total = sum(counts)
    if len(values) < T.MIN_STEPS_FOR_TREND or len(counts) < 2 or total == 0:
        return
    prior = -sum(c / total * math.log(c / total) for c in counts)
    k = len(values) // 3
    tail = sum(values[-k:]) / k
    if tail < (1 - T.LABEL_PRIOR_MARGIN) * prior:
        return
    falling, drop = _still_falling(values, prior)
    ext = d.get("extension")
    watched = f"{len(values)} steps" + (f" ({ext['extra']} watched beyond the {ext['requested']} requested to settle this)" if ext else "")
    observation = (f"mean cross-entropy over the last {k} of {watched}: {fmt(tail)} vs {fmt(prior)}, the entropy of the "
                   f"{total} labels seen (what predicting class frequencies alone scores); flagged unless at least "
                   f"{int(100 * T.LABEL_PRIOR_MARGIN)}% below; the middle third's mean was {fmt(drop)} higher than the last third's")
    measurements = {"label_entropy": prior, "loss_tail_mean": tail, "losses": values[:100], "still_falling": falling}
    if falling:
        yield Found(
            "the loss has not yet gone below the label-frequency baseline, but it is still falling: probably a slow start, too early to tell",
            observation=observation,
            next_test="trace more steps (mlsleuth trace --steps 200) and see whether the loss passes below the label entropy",
            fix=None, measurements=measurements, module="(loss)", step=len(values) - 1, phase="loss", severity="info")
        return
    yield Found(
        "the loss is no better than predicting the label frequencies and has stopped falling: the model has learned nothing from its inputs "
        "(labels misaligned with inputs, inputs that carry no signal, or learning blocked)",
        observation=observation,
        next_test="train on one fixed batch (mlsleuth diagnose FILE:FUNCTION overfits one batch and compares real, shuffled and random inputs); "
                  "also print a few (input, label) pairs after the data pipeline to check they still belong together",
        fix="keep inputs and labels aligned through every shuffle/augmentation/sort; check the label source",
        measurements=measurements, module="(loss)", step=len(values) - 1, phase="loss")


def _still_falling(values: list[float], prior: float) -> tuple[bool, float]:
    """Whether the last third of ``values`` is clearly below the middle third (beyond noise and 1% of ``prior``)."""
    k = len(values) // 3
    mid, last = values[-2 * k:-k], values[-k:]

    def mean_var(xs: list[float]) -> tuple[float, float]:
        m = sum(xs) / len(xs)
        return m, (sum((x - m) ** 2 for x in xs) / (len(xs) - 1) if len(xs) > 1 else 0.0)

    (m1, v1), (m2, v2) = mean_var(mid), mean_var(last)
    se = math.sqrt(v1 / len(mid) + v2 / len(last))
    drop = m1 - m2
    return drop > max(2 * se, 0.01 * prior), drop


# -- data ------------------------------------------------------------------------------------
@runtime_check("input-non-finite", tool="trace", category="data", severity="error")
def input_non_finite(run: TraceRun) -> Iterator[Found]:
    """The input batch contains NaN or Inf.

    What it finds: NaN or Inf values in the first training batch fed to the model (also reported by diagnose).
    Why it matters: they propagate into every gradient and the weights within one step.
    How to confirm: torch.isfinite(x).all() over the dataset, then find the offending samples/features.
    What to do instead: clean or impute the data; use nan-aware statistics for normalisation.
    """
    st = _first_input_stats(run)
    if st and (st.get("nan") or st.get("inf")):
        yield Found(
            "the input batch contains NaN or Inf: it poisons every gradient it touches",
            observation=f"first training batch {st['shape']}: {st['nan']} NaN and {st['inf']} Inf value(s)",
            next_test="torch.isfinite(x).all() over the dataset; find which samples/features hold the NaN (missing values, division by a zero std)",
            fix="clean or impute the data; compute normalisation statistics with nan-aware functions",
            measurements=st, module=run.data.get("input_module"), step=0, phase="data")


@runtime_check("input-unnormalized", tool="trace", category="data", severity="warning")
def input_unnormalized(run: TraceRun) -> Iterator[Found]:
    """Unnormalised inputs.

    What it finds: a floating-point first batch holding integer values in 0..255 with a maximum of at least
    {T.RAW_PIXEL_MIN_MAX:g} (raw pixels or counts), or with |mean| or std above {T.INPUT_SCALE_LIMIT:g}
    (also reported by diagnose). Integer-typed inputs such as token ids are not flagged.
    Why it matters: default initialisations assume unit-scale inputs; at 255x scale the first layer saturates or
    produces huge logits, the initial loss is high and training is slow or unstable.
    It is a warning when the run shows the harm (a first loss far above ln C that has not come down below it, dead
    or saturated activations, a loss that does not fall or turns non-finite) and info when the run trains normally.
    How to confirm: print(x.min(), x.max(), x.mean(), x.std()); compare a few steps with x / 255.
    What to do instead: scale to [0, 1] and standardise with the training set's statistics.
    """
    st = _finite_inputs(run)
    if not st:
        return
    raw = st.get("integral") and st["min"] >= 0 and T.RAW_PIXEL_MIN_MAX <= st["max"] <= T.RAW_PIXEL_MAX
    large = abs(st.get("mean", 0)) > T.INPUT_SCALE_LIMIT or st.get("std", 0) > T.INPUT_SCALE_LIMIT
    if raw or large:
        what = ("integer values in 0..255, i.e. raw pixels/counts" if raw else
                f"mean {fmt(st.get('mean'))}, std {fmt(st.get('std'))} (more than {T.INPUT_SCALE_LIMIT:g}x unit scale)")
        harm = _input_scale_harm(run)
        yield Found(
            "the model is fed unnormalised inputs: layers initialised for unit-scale inputs start saturated or over-confident"
            + (" (this run still trains: the loss falls and nothing saturates, so it may be harmless here)" if harm == "" else ""),
            observation=f"first training batch {st['shape']} ({st['dtype']}): min {fmt(st['min'])}, max {fmt(st['max'])}, {what}"
                        + (f"; {harm}" if harm else ""), severity="info" if harm == "" else None,
            next_test="print(x.min(), x.max(), x.mean(), x.std()) on one batch; compare the loss after a few steps with x / 255 (or standardised) inputs",
            fix="scale to [0, 1] (e.g. transforms.ToTensor or x / 255.) and standardise with the training set's mean and std",
            measurements=st, module=run.data.get("input_module"), step=0, phase="data")


def _back_below(rec: dict, level: float) -> bool:
    """Whether a loss call's last traced values (the median of the last ``T.RECOVERY_LAST_VALUES``) are below ``level``.

    The end of the window, not the mean of its last third: a loss falling fast from a bad start is still above
    the level on average while its latest values are already well below it (a slow start, not a stuck run).
    """
    values = [v for v in rec.get("values", []) if isinstance(v, (int, float)) and math.isfinite(v)]
    if len(values) < T.RECOVERY_LAST_VALUES:
        return False
    last = sorted(values[-T.RECOVERY_LAST_VALUES:])
    return last[len(last) // 2] < level


def _input_scale_harm(run: TraceRun) -> str | None:
    """What in this run shows unnormalised inputs doing harm ('' when the run trains normally; None when no
    training losses were seen, e.g. input statistics alone from diagnose, so there is no evidence either way)."""
    if run.data.get("non_finite_loss"):
        return "the loss became non-finite"
    if len(run.data.get("losses", [])) < 3:
        return None
    if not _loss_falls(run):
        return "the loss is not falling"
    for rec in run.data.get("loss_calls", {}).values():
        if not rec.get("grad_enabled", True):  # an evaluation metric under no_grad is not the training loss
            continue
        value, classes = rec.get("first_value"), rec.get("classes") or 2
        still_high = not _back_below(rec, math.log(classes))
        if isinstance(value, (int, float)) and classes >= 2 and value > T.INITIAL_LOSS_FACTOR * math.log(classes) \
                and value - math.log(classes) >= T.INITIAL_LOSS_MARGIN_NATS and not rec.get("soft_targets") and still_high:
            return f"the first loss {fmt(value)} is far above ln({classes}) and the loss is still above it"
    for name, rec in run.data.get("activations", {}).items():
        if rec.get("dead_fraction", 0) >= T.DEAD_RELU_FRACTION or rec.get("saturated_fraction", 0) >= T.SATURATED_FRACTION:
            return f"activations of '{name}' are dead or saturated"
    return ""


@runtime_check("constant-input-features", tool="trace", category="data", severity="info", role="symptom")
def constant_input_features(run: TraceRun) -> Iterator[Found]:
    """Constant input features.

    What it finds: features with zero variance across the first training batch (2-D inputs, at least 8 samples).
    Why it matters: they carry no information; many at once suggest a broken column or a bad normalisation.
    How to confirm: compute per-feature std over the whole training set.
    What to do instead: drop them or fix the pipeline step that flattens them.
    """
    st = _finite_inputs(run)
    if st and st.get("constant_features"):
        yield Found(
            "some input features are constant across the batch: they carry no information (a broken column or a normalisation by zero std?)",
            observation=f"{st['constant_features']} of {st.get('features')} features had zero variance in the first training batch of {st['shape'][0]} samples",
            next_test="compute the per-feature std over the whole training set; list the zero-variance columns",
            fix="drop the constant features or fix the pipeline step that flattens them",
            measurements={"constant_features": st["constant_features"], "features": st.get("features")},
            module=run.data.get("input_module"), step=0, phase="data")


def _labels(run: TraceRun) -> tuple[dict[int, int], int, dict | None]:
    """``(class counts, total labels, the cross-entropy or NLL loss record)``."""
    d = run.data
    counts = {int(k): v for k, v in d.get("class_counts", {}).items()}
    ce = d.get("loss_calls", {}).get("cross_entropy") or d.get("loss_calls", {}).get("nll_loss")
    return counts, sum(counts.values()), ce


@runtime_check("class-imbalance", tool="trace", category="data", severity="info", role="symptom")
def class_imbalance(run: TraceRun) -> Iterator[Found]:
    """One class dominates the labels.

    What it finds: one class holds at least {pct.MAJORITY_CLASS_SHARE}% of the class labels seen over the traced batches.
    Why it matters: accuracy is misleading and the model can score well by predicting that class only.
    How to confirm: a class histogram over the full training set and a majority-class baseline.
    What to do instead: class weights, a balanced sampler, per-class metrics.
    """
    counts, total, ce = _labels(run)
    if total and ce:
        top_class, top = max(counts.items(), key=lambda kv: kv[1])
        if len(counts) >= 1 and top / total >= T.MAJORITY_CLASS_SHARE and (ce.get("classes") or 0) >= 2:
            yield Found(
                "the labels seen are dominated by one class: accuracy is misleading and the model may learn to predict only that class",
                observation=f"class {top_class} held {top} of {total} labels ({fmt(100 * top / total)}%) over the traced training batches",
                next_test="compute the class histogram over the full training set and a majority-class baseline's accuracy",
                fix="use class weights, a balanced sampler, or metrics such as per-class recall/F1",
                measurements={"class_counts": counts}, module="(loss)", phase="data")


@runtime_check("output-size-mismatch", tool="trace", category="data", severity="warning")
def output_size_mismatch(run: TraceRun) -> Iterator[Found]:
    """The output layer has many more classes than the labels use.

    What it finds: over at least {T.LABELS_PER_CLASS} x C labels, fewer than half of the C output classes ever appear.
    Why it matters: the final layer was sized for another dataset or num_classes is wrong; probability mass leaks
    to classes that never occur and the initial loss is higher than it should be.
    How to confirm: compare len(dataset.classes) with the final layer's out_features.
    What to do instead: size the final layer to the real number of classes.
    """
    counts, total, ce = _labels(run)
    if total and ce:
        classes = ce.get("classes") or 0
        if classes >= 2 and total >= T.LABELS_PER_CLASS * classes and len(counts) < classes / 2 and not ce.get("out_of_range"):
            yield Found(
                f"the model outputs {classes} classes but the labels use only {len(counts)} of them: the output size and the dataset's number of classes probably disagree",
                observation=f"{total} labels over the traced steps took {len(counts)} distinct values ({sorted(counts)[:10]}), output has {classes} logits",
                next_test="print(len(dataset.classes)) (or the label set) and compare with the final layer's out_features",
                fix="set the final layer's output size to the real number of classes",
                measurements={"classes_in_output": classes, "distinct_labels": len(counts), "labels_seen": total},
                module="(output layer)", phase="loss")


# -- evaluation ------------------------------------------------------------------------------
@runtime_check("eval-in-train-mode", tool="trace", category="evaluation", severity="warning")
def eval_in_train_mode(run: TraceRun) -> Iterator[Found]:
    """An evaluation pass runs in training mode.

    What it finds: a forward under torch.no_grad()/inference_mode of a model still in training mode that contains
    active dropout or batch-norm layers.
    Why it matters: dropout stays on (noisy, pessimistic metrics) and batch-norm normalises with, and updates its
    running statistics from, the evaluation batches: validation numbers are wrong and training state drifts.
    How to confirm: evaluate the same batch twice; outputs differ. Then call model.eval() and compare the metric.
    What to do instead: model.eval() before evaluation, model.train() before training resumes.
    """
    for rec in run.data.get("eval_train_mode", [])[:1]:
        mods = rec["modules"]
        names = ", ".join(f"{m['module']} ({m['type']})" for m in mods[:5])
        yield Found(
            "a no-grad (evaluation) pass ran with the model in training mode: dropout stays active and batch-norm uses and updates batch statistics",
            observation=f"{rec['root']} had training=True during a torch.no_grad() forward at step {rec['step']}; {rec['count']} mode-dependent layer(s): {names}",
            next_test="call model.eval() before the evaluation loop and compare the metric; running the same batch twice in this mode gives different outputs",
            fix="model.eval() before evaluating and model.train() before resuming training",
            measurements=rec, module=mods[0]["module"], step=rec["step"], phase="evaluation")


@runtime_check("functional-dropout-in-eval", tool="trace", category="evaluation", severity="error")
def functional_dropout_in_eval(run: TraceRun) -> Iterator[Found]:
    """Functional dropout active during evaluation.

    What it finds: F.dropout (or its 1d/2d/3d/alpha variants) called with training=True inside a module that is in
    eval mode, or inside a no-grad pass.
    Why it matters: F.dropout defaults to training=True and ignores model.eval(), so evaluation stays random and
    pessimistic while every mode switch looks right.
    How to confirm: with model.eval(), run the same batch twice: outputs differ.
    What to do instead: use an nn.Dropout submodule, or pass training=self.training.
    """
    fd = run.data.get("functional_dropout")
    if fd:
        ctx = "a module in eval mode" if fd.get("module_training") is False else "a no-grad pass"
        yield Found(
            "functional dropout is active during evaluation: F.dropout defaults to training=True and ignores model.eval()",
            observation=f"F.{fd['function']}(p={fd['p']}, training=True) ran {fd['calls']} time(s) inside {ctx} (module '{fd.get('module')}', step {fd['step']})",
            next_test="run the model twice on the same batch after model.eval(): outputs differ",
            fix="use nn.Dropout as a submodule, or pass training=self.training to F.dropout",
            measurements=fd, module=fd.get("module") or "(model)", step=fd["step"], phase="evaluation")


@runtime_check("eval-nondeterministic", tool="trace", category="evaluation", severity="warning")
def eval_nondeterministic(run: TraceRun) -> Iterator[Found]:
    """Evaluation outputs change between two passes over the same batch.

    What it finds: the first no-grad forward of a model in eval mode is repeated on the same inputs (random-number
    state preserved, so the user's run is unaffected) and the outputs differ (also reported by diagnose).
    Why it matters: something random or stateful is active at evaluation time, so metrics are noisy and checkpoints
    cannot be compared.
    How to confirm: model.eval(); a = model(x); b = model(x); bisect the submodule whose output differs.
    What to do instead: route randomness through modules that respect eval(); do not update state in eval forwards.
    """
    det = run.data.get("eval_determinism")
    if det and not det.get("skipped") and not det.get("identical"):
        yield Found(
            "two evaluation passes over the same batch gave different outputs: something random or stateful is active in eval mode",
            observation=f"{det['root']} in eval mode under no_grad: max |difference| {fmt(det['max_abs_diff'])} between two forwards of the same batch (step {det['step']})",
            next_test="with model.eval(), run torch.manual_seed(0); a = model(x); b = model(x) and bisect which submodule's output differs",
            fix="route randomness through modules that respect .eval() (nn.Dropout), and do not update state (caches, counters) in eval forwards",
            measurements=det, module=det.get("functional_dropout") or det["root"], step=det["step"], phase="evaluation")


# -- structure -------------------------------------------------------------------------------
@runtime_check("batch-mixing", tool="trace", category="architecture", severity="error")
def batch_mixing(run: TraceRun) -> Iterator[Found]:
    """Samples mix across the batch.

    What it finds: on a captured training batch, with the model in eval mode (so batch-norm cannot legitimately mix
    samples), the gradient of output i with respect to the inputs of other samples is not exactly zero. Module
    outputs are checked the same way to localise where the mixing happens (also reported by diagnose). The batch
    dimension is read at the model's boundary (the input dimension a loss target's first dimension matches, 0 or
    1), so a model that takes batch-first input and converts it for a sequence-first layer inside its forward is
    probed like any other; token inputs are differentiated through the first embedding's output.
    Why it matters: a view/reshape/transpose over the batch dimension silently scrambles samples: the model trains
    on garbage pairs and the loss still goes down a little.
    A model whose output is a (batch x batch) matrix (in-batch similarities of a contrastive model) compares samples
    by design; it is not reported when reordering the batch reorders that matrix's rows and columns alike.
    How to confirm: x.requires_grad_(); model.eval(); model(x)[0].sum().backward(); only x.grad[0] may be non-zero.
    What to do instead: flatten with x.flatten(1) or x.reshape(x.size(0), -1); use permute, not view, to reorder axes.
    """
    bd = run.data.get("batch_dependence")
    if bd and not bd.get("skipped") and bd.get("leak", 0) > 0:
        bo = run.data.get("batch_order") or {}
        if bo.get("pairwise") and not bo.get("changed"):
            return  # a (batch x batch) output such as in-batch similarities compares samples by design, in order
        after, before = bd.get("mixing_after"), bd.get("mixing_before")
        where = (f"between the output of '{after}' and the output of '{before}'" if after and before else
                 f"after '{after}'" if after else f"before '{before}'" if before else "somewhere in the forward")
        yield Found(
            f"samples mix across the batch {where}: output {bd['sample']} depends on other samples' inputs (a reshape/view/transpose over the batch dimension?)",
            observation=f"in eval mode, d output[{bd['sample']}] / d input[j] reached {fmt(bd['leak'])} for j != {bd['sample']} (own sample: {fmt(bd['self'])}); "
                        f"it must be exactly 0 when samples are independent (batch of {bd['batch']})",
            next_test="x = batch.clone().requires_grad_(); model.eval(); model(x)[0].sum().backward(); print(x.grad.flatten(1).abs().sum(1)): only row 0 may be non-zero",
            fix="use x.flatten(1) / x.reshape(x.size(0), -1) and permute (not view) when reordering dimensions; keep the batch dimension first",
            measurements=bd, module=before or after or bd.get("root"), step=0, phase="forward")


@runtime_check("frozen-parameters", tool="trace", category="training-loop", severity="info")
def frozen_parameters(run: TraceRun) -> Iterator[Found]:
    """Frozen parameters in a trained model.

    What it finds: parameters with requires_grad=False in a model whose other parameters are being optimised.
    Why it matters: intended when fine-tuning; otherwise a layer silently never trains (a leftover freeze loop, or
    requires_grad switched off while debugging).
    How to confirm: list [n for n, p in model.named_parameters() if not p.requires_grad].
    What to do instead: set requires_grad=True on the layers meant to train.
    """
    frozen = run.data.get("frozen", [])
    if frozen:
        groups: dict[str, list[str]] = {}
        for p in frozen:
            groups.setdefault(p["module"] or "(model)", []).append(p["name"])
        for module, names in sorted(groups.items())[:10]:
            yield Found(
                f"parameters of '{module}' have requires_grad=False and are never trained (intended when fine-tuning; a bug otherwise)",
                observation=f"{len(names)} frozen parameter(s): {', '.join(names[:4])}",
                next_test="print([n for n, p in model.named_parameters() if not p.requires_grad]) and confirm each is meant to be frozen",
                fix="set requires_grad=True on layers you mean to train",
                measurements={"parameters": names[:50]}, module=module, phase="setup")


@runtime_check("param-not-in-optimizer", tool="trace", category="training-loop", severity="error")
def param_not_in_optimizer(run: TraceRun) -> Iterator[Found]:
    """Trainable parameters missing from every optimizer.

    What it finds: parameters with requires_grad=True in a model that is being optimised, but absent from all
    optimizers' param_groups.
    Why it matters: they get gradients but never change; usually the optimizer was built before a layer was added
    or replaced, or from a list of selected sub-modules.
    When none of them ever received a gradient (the module runs under torch.no_grad(): frozen on purpose, only
    requires_grad left on), the finding is info.
    How to confirm: compare the ids of optimizer parameters with the ids of model.parameters().
    What to do instead: build the optimizer from model.parameters() after the model is final.
    """
    missing = run.data.get("not_in_optimizer", [])
    if missing:
        flagged = [(p["name"], p["module"]) for p in missing]
        graded = {p["name"] for p in missing if p.get("has_grad", True)}
        universe = [tuple(pm) for pm in run.data.get("model_params", [])] or flagged
        for module, names in group_by_module(flagged, universe)[:10]:
            unused = not graded & set(names)  # never in the backward graph: run under no_grad, i.e. frozen on purpose
            yield Found(
                f"trainable parameters of '{module or '(model)'}' are not in any optimizer: they get gradients but never change",
                observation=f"{len(names)} parameter(s) with requires_grad=True are missing from every optimizer's param_groups: {', '.join(names[:4])}",
                next_test="compare {id(p) for g in optimizer.param_groups for p in g['params']} with {id(p) for p in model.parameters()}",
                fix="build the optimizer from model.parameters() after the model is complete (a layer created or replaced later is not included)",
                measurements={"parameters": names[:50], "received_gradients": not unused}, module=module or "(model)", phase="setup",
                severity="info" if unused else None)


@runtime_check("symmetric-weights", tool="trace", category="architecture", severity="warning")
def symmetric_weights(run: TraceRun) -> Iterator[Found]:
    """A layer's units stay identical after training steps.

    What it finds: a weight matrix with at least two output units whose rows are all identical (often all zero)
    after the traced optimizer steps (diagnose reports the same at initialisation as symmetric-init).
    Why it matters: identical units receive identical gradients, so symmetry is never broken and the layer acts as
    one unit; a classic "loss stuck at ln C" cause, worse with a high learning rate.
    How to confirm: print(w.std(dim=0)) at initialisation: all zeros.
    What to do instead: random init (Kaiming/Xavier) for hidden layers; zero init only for a final layer or biases.
    """
    for s in run.data.get("symmetric", [])[:10]:
        if not math.isfinite(s.get("max_abs", 0.0)):
            continue  # weights blown up to inf/NaN are "identical" rows by accident (non-finite-loss tells that story)
        yield Found(
            f"all {s['rows']} output units of '{s['module']}' still have identical weights after training steps: symmetry was never broken, so the layer acts as one unit",
            observation=f"{s['name']}: every row equal to the first {_zero_note(s)} after the traced steps",
            next_test=f"print({s['name']}.std(dim=0)) at init: zeros mean a constant initialisation",
            fix="use the default random init (nn.init.kaiming_uniform_ / xavier) for hidden layers; zero init is only safe for a final layer or biases",
            measurements=s, module=s["module"], parameter=s["name"], phase="setup")




# -- model structure (beyond parameters) -----------------------------------------------------
@runtime_check("unregistered-layer-in-forward", tool="trace", category="architecture", severity="error")
def unregistered_submodule(run: TraceRun) -> Iterator[Found]:
    """Layers used in the forward but not registered in the model.

    What it finds: a module with trainable parameters that runs inside a model's forward but is not one of the
    model's submodules (kept in a plain Python list, dict or tuple, or created inside forward), whose parameters
    receive gradients but are in no optimizer. Reported under the registered module whose forward calls it. A helper
    hidden on purpose (frozen with requires_grad=False, or run under torch.no_grad()) is not reported.
    Why it matters: model.parameters(), state_dict(), .to(device) and .train()/.eval() never see it; the
    optimizer skips it, so the layer stays at its random initialisation (or is rebuilt every call) while the
    model still runs and the loss still falls a little.
    How to confirm: print(sum(p.numel() for p in model.parameters())) and compare with the layers the forward
    uses; print(model) does not list them.
    What to do instead: hold layers in nn.ModuleList / nn.ModuleDict / nn.Sequential (or assign them as
    attributes), built once in __init__.
    """
    groups: dict[str, list[dict]] = {}
    for rec in run.data.get("unregistered_modules", []):
        if rec.get("trainable") and rec.get("in_optimizer", 0) < rec["trainable"] and rec.get("received_gradients", True):
            groups.setdefault(rec.get("owner") or "(model)", []).append(rec)
    for owner, recs in groups.items():
        types = ", ".join(dict.fromkeys(r["type"] for r in recs))
        numel = sum(r.get("numel", 0) for r in recs)
        yield Found(
            f"'{owner}' runs {len(recs)} layer(s) that are not registered submodules: their weights are in no optimizer and never train "
            "(layers kept in a plain Python list/dict, or created inside forward)",
            observation=f"during '{owner}'.forward at step {recs[0].get('step')}: {len(recs)} module(s) ({types}) with {numel} trainable "
                        f"parameter elements ran, but none is a submodule of the model and their parameters are in no optimizer",
            next_test=f"print(model.{owner}) if it is an attribute: the layers are missing from the listing; compare "
                      "sum(p.numel() for p in model.parameters()) with what the forward uses",
            fix="hold the layers in nn.ModuleList / nn.ModuleDict / nn.Sequential, built once in __init__",
            measurements={"modules": recs[:10]}, module=owner, step=recs[0].get("step"), phase="forward")


@runtime_check("kl-div-input-not-log-probs", tool="trace", category="loss", severity="error")
def kl_div_input_not_log_probs(run: TraceRun) -> Iterator[Found]:
    """KL-divergence loss fed probabilities instead of log-probabilities.

    What it finds: every inspected call of F.kl_div / nn.KLDivLoss received an input that is non-negative
    (probabilities, e.g. a softmax output), where it expects log-probabilities (never positive).
    Why it matters: kl_div(input, target) computes target * (log target - input); with probabilities as input the
    objective just pushes up the probability of classes the target favours, the printed loss goes negative and the
    true divergence grows: distillation makes the student over-confident instead of matching the teacher.
    How to confirm: print(input.max()) before the loss: log-probabilities are <= 0.
    What to do instead: pass F.log_softmax(student_logits / T, dim=-1) as the input (the target stays a probability,
    or pass log_target=True with a log-probability target).
    """
    kl = run.data.get("kl_div")
    if kl and kl.get("calls") and kl.get("non_negative_calls", 0) >= kl["calls"]:
        what = "rows that are non-negative and sum to 1 (softmax probabilities)" if kl.get("rows_sum_to_one") else "non-negative values"
        yield Found(
            "KL-divergence receives probabilities as its input, but it expects log-probabilities: the loss rewards over-confidence instead of matching the target",
            observation=f"on all {kl['calls']} inspected F.kl_div / nn.KLDivLoss calls the {tuple(kl.get('input_shape') or ())} input held {what} "
                        f"(range {fmt(kl.get('input_min'))}..{fmt(kl.get('input_max'))}); log-probabilities are never positive",
            next_test="print(input.max()) right before the KL loss: log-probabilities are <= 0",
            fix="pass F.log_softmax(logits, dim=-1) as the input; keep the target a probability (or use log_target=True)",
            measurements=kl, module=_mod(kl.get("where")), step=kl.get("step"), phase="loss", **site_location(run, kl))


@runtime_check("unshuffled-class-sorted-batches", tool="trace", category="data", severity="warning")
def unshuffled_class_sorted_batches(run: TraceRun) -> Iterator[Found]:
    """Training batches hold one class each: the data is sorted by class and not shuffled.

    What it finds: over at least {T.BATCH_SINGLE_CLASS_MIN_BATCHES} training batches of a classification loss, at least
    {pct.BATCH_SINGLE_CLASS_SHARE}% hold a single class, while batches drawn at random from the label frequencies seen
    would be single-class at most {pct.BATCH_SINGLE_CLASS_CHANCE}% of the time.
    Why it matters: each update then pulls the model towards one class; it chases whichever class it saw last, the
    loss swings with the class order and accuracy lags a shuffled run by far.
    How to confirm: print(labels.unique()) for a few consecutive training batches.
    What to do instead: shuffle the training loader (DataLoader(..., shuffle=True) or a RandomSampler).
    """
    bp = run.data.get("batch_purity") or {}
    n, single = bp.get("batches", 0), bp.get("single_class", 0)
    counts, total, _ = _labels(run)
    if n < T.BATCH_SINGLE_CLASS_MIN_BATCHES or total == 0 or len(counts) < 2:
        return
    sizes = bp.get("sizes") or []
    size = sorted(sizes)[len(sizes) // 2] if sizes else 0
    if size < 2:
        return
    chance = sum((c / total) ** size for c in counts.values())
    if single / n >= T.BATCH_SINGLE_CLASS_SHARE and chance <= T.BATCH_SINGLE_CLASS_CHANCE:
        yield Found(
            "the training batches each hold a single class: the data is ordered by class and the loader does not shuffle it",
            observation=f"{single} of {n} training batches (typical size {size}) contained one class only, over {len(counts)} classes seen; "
                        f"random batches with these label frequencies would be single-class {fmt(100 * chance)}% of the time",
            next_test="print(labels.unique()) for a few consecutive training batches: one class each, in order, confirms it",
            fix="shuffle the training data: DataLoader(train_set, shuffle=True) or a RandomSampler",
            measurements={"batches": n, "single_class": single, "batch_size": size, "chance": chance, "classes_seen": len(counts)},
            module="(training data)", step=0, phase="data")


@runtime_check("padding-scored-as-target", tool="trace", category="data", severity="warning")
def padding_counted_in_loss(run: TraceRun) -> Iterator[Found]:
    """Padding positions are scored as targets by the loss.

    What it finds: the model's token input is right-padded (most rows end in a run of one id, covering at least
    {pct.PADDING_FRACTION}% of the batch) and that same id makes up at least {pct.PADDING_TARGET_SHARE}% of the
    class-index targets the cross-entropy scores (ignore_index does not exclude it).
    Why it matters: the loss is then dominated by trivially predictable pad positions: it falls fast while the
    model learns little about the real tokens, and the reported loss and perplexity are meaningless.
    How to confirm: print((targets == pad_id).float().mean()) and the loss call's ignore_index.
    What to do instead: pass ignore_index=pad_id to the loss (or set pad targets to -100), or mask the loss.
    """
    from mlsleuth.runtime.trace.checks_lm import pad_labels_scored  # noqa: PLC0415 - registered from the bottom of this module

    if pad_labels_scored(run):
        return  # lm-pad-labels-scored reports the same padding, with the attention mask as evidence
    st = run.data.get("input_stats") or {}
    pad = st.get("trailing_pad")
    counts, total, ce = _labels(run)
    if not pad or not ce or not total or ce.get("soft_targets"):
        return
    if _one_target_per_sequence(ce.get("target_shape"), st.get("shape")):
        return  # class labels of whole sequences: a label equal to the pad id is a class, not a padded position
    share = counts.get(int(pad["id"]), 0) / total
    if pad["fraction"] >= T.PADDING_FRACTION and pad.get("rows_padded", 0) >= 0.5 and share >= T.PADDING_TARGET_SHARE:
        yield Found(
            f"padding is scored by the loss: the pad id {pad['id']} fills {fmt(100 * share)}% of the targets, so the loss mostly measures how well the model predicts padding",
            observation=f"first token batch {st.get('shape')}: {fmt(100 * pad['rows_padded'])}% of rows end in a run of id {pad['id']} "
                        f"({fmt(100 * pad['fraction'])}% of all positions); {fmt(100 * share)}% of the {total} class-index targets "
                        f"counted by the loss are that id (ignore_index does not exclude it)",
            next_test=f"print((targets == {pad['id']}).float().mean()) and the loss call's ignore_index",
            fix=f"pass ignore_index={pad['id']} to the loss (or set pad targets to -100 before it)",
            measurements={"pad_id": pad["id"], "pad_fraction": pad["fraction"], "target_share": share},
            module="(loss)", step=0, phase="loss")


def _one_target_per_sequence(target_shape: list | None, token_shape: list | None) -> bool:
    """The loss scores one target per input sequence (``(B,)`` class labels for a ``(B, T)`` token batch)."""
    if not target_shape or not token_shape:
        return False
    return math.prod(target_shape) <= token_shape[0]


@runtime_check("low-precision-master-weights", tool="trace", category="environment", severity="warning")
def low_precision_master_weights(run: TraceRun) -> Iterator[Found]:
    """The optimizer updates float16/bfloat16 weights directly, and the updates round away.

    What it finds: parameters stored in float16 or bfloat16 in the optimizer where, on average, at least
    {pct.LOST_UPDATE_FRACTION}% of the elements with a non-zero gradient were left bit-identical by a step,
    on parameters holding at least {pct.LOST_UPDATE_WEIGHT_SHARE}% of the trained weights.
    Why it matters: an update smaller than half a unit in the last place of the weight is rounded away
    (bfloat16 keeps 8 bits of mantissa: weights above ~0.03 cannot take a 1e-4 step). Those weights never move,
    the loss falls far more slowly than with float32 master weights, and nothing errors.
    How to confirm: print(p.dtype) for the optimizer's parameters; compare p.clone() before and after one step.
    What to do instead: keep float32 weights and train under torch.autocast(dtype=torch.bfloat16), or use a
    mixed-precision wrapper that keeps float32 master weights.
    """
    low = [p for p in run.params if p.get("dtype") in ("float16", "bfloat16") and p.get("lost_update_fraction") is not None]
    total = sum(p["numel"] for p in run.params) or 1
    lossy = [p for p in low if p["lost_update_fraction"] >= T.LOST_UPDATE_FRACTION]
    share = sum(p["numel"] for p in lossy) / total
    if lossy and share >= T.LOST_UPDATE_WEIGHT_SHARE:
        worst = sorted(lossy, key=lambda p: -p["lost_update_fraction"])[:4]
        yield Found(
            f"the optimizer updates {lossy[0]['dtype']} weights directly and most updates round away: these weights barely train",
            observation=f"{len(lossy)} {lossy[0]['dtype']} parameter(s) holding {fmt(100 * share)}% of the weights left on average at least "
                        f"{int(100 * T.LOST_UPDATE_FRACTION)}% of their elements with a non-zero gradient unchanged per step (e.g. "
                        + ", ".join(f"{p['name']} {fmt(100 * p['lost_update_fraction'])}%" for p in worst) + ")",
            next_test="print({p.dtype for p in model.parameters()}); compare one weight before and after optimizer.step()",
            fix="keep float32 weights and train under torch.autocast(device_type=..., dtype=torch.bfloat16), or keep float32 master weights",
            measurements={"parameters": [p["name"] for p in lossy][:50], "weight_share": share},
            module=lossy[0]["module"] or "(model)", phase="optimizer")


def _low_precision_explained(p: dict) -> bool:
    """A parameter whose missing updates low-precision-master-weights explains."""
    return p.get("dtype") in ("float16", "bfloat16") and (p.get("lost_update_fraction") or 0) >= T.LOST_UPDATE_FRACTION


@runtime_check("state-dict-load-matched-nothing", tool="trace", category="environment", severity="error")
def state_dict_load_matched_nothing(run: TraceRun) -> Iterator[Found]:
    """load_state_dict(strict=False) that loaded (almost) nothing.

    What it finds: a load_state_dict(..., strict=False) call where most of the model's keys were missing from the
    checkpoint and the checkpoint's keys went unused (a 'module.' or 'model.' prefix from a wrapper, a renamed
    attribute).
    Why it matters: strict=False turns the mismatch into a silently returned list; the model keeps its random
    initialisation and the run "fine-tunes" from scratch.
    How to confirm: print(model.load_state_dict(sd, strict=False)): the missing and unexpected keys differ by a prefix.
    What to do instead: strip the prefix (k.removeprefix('module.')) or save the unwrapped model's state_dict, and
    check the returned missing/unexpected keys (or load with strict=True).
    """
    for rec in run.data.get("state_dict_loads", []):
        own = rec.get("model_keys") or 0
        if own and rec.get("unexpected") and rec.get("missing", 0) >= 0.5 * own:
            yield Found(
                f"load_state_dict(strict=False) into {rec['module']} matched almost nothing: {rec['missing']} of its {own} keys stayed at their initial values",
                observation=f"{rec.get('when') or 'at step ' + str(rec.get('step'))}: {rec['missing']} of {own} model keys missing from the checkpoint and {rec['unexpected']} of its "
                            f"{rec.get('given_keys')} keys unused (e.g. missing {rec.get('missing_examples')}, unexpected {rec.get('unexpected_examples')})",
                next_test="print(model.load_state_dict(state_dict, strict=False)): compare the missing and unexpected key names",
                fix="strip the wrapper prefix (k.removeprefix('module.')) or save the unwrapped model, and check the returned keys or load with strict=True",
                measurements=rec, step=rec.get("step"), phase="setup", **site_location(run, rec))


@runtime_check("grad-accumulation-unscaled", tool="trace", category="training-loop", severity="warning")
def grad_accumulation_unscaled(run: TraceRun) -> Iterator[Found]:
    """Gradient accumulation sums the micro-batch gradients instead of averaging them.

    What it finds: on optimizer steps that follow k >= 2 backward passes (at least {T.ACCUMULATION_MIN_STEPS} such
    steps), the scale applied to the micro-batch losses is about 1 instead of 1/k: the value passed to backward()
    equals the loss function's output, and the gradients are not divided before optimizer.step() either (the median
    product of the two scales is above 1/sqrt(k), halfway between 1/k and 1 on a log scale).
    Why it matters: each update is then k times larger than with the same data in one batch, so a learning rate
    tuned without accumulation is k times too large; training is unstable or diverges.
    How to confirm: print(loss.item()) of the value passed to backward() next to the criterion's output: they are equal.
    What to do instead: divide each micro-batch loss by the number of accumulation steps (or the accumulated
    gradients before the step).
    """
    acc = [a for a in run.data.get("accumulation", [])
           if a.get("backward", 0) >= 2 and isinstance(a.get("root_scale"), (int, float)) and isinstance(a.get("post_scale"), (int, float))]
    if len(acc) < T.ACCUMULATION_MIN_STEPS or checks_amp.accelerate_backward_bypassed(run.data):
        return
    scales = sorted(a["root_scale"] * a["post_scale"] for a in acc)
    ks = sorted(a["backward"] for a in acc)
    k = ks[len(ks) // 2]
    median = scales[len(scales) // 2]
    if math.isfinite(median) and median > 1 / math.sqrt(k):
        yield Found(
            f"gradients of {k} micro-batches are summed, not averaged: each update is about {k}x larger than with the same data in one batch",
            observation=f"over {len(acc)} steps with {k} backward passes each, the micro-batch losses reached the gradients with a median scale of "
                        f"{fmt(median)} (averaging gives 1/{k} = {fmt(1 / k)}; flagged above {fmt(1 / math.sqrt(k))})",
            next_test="print the value passed to backward() next to the criterion's output: equal values mean the loss is not divided by the accumulation steps",
            fix=f"divide each micro-batch loss by the number of accumulation steps ({k}) before backward()",
            measurements={"steps": len(acc), "micro_batches": k, "scale_median": median, "scales": scales[:20]},
            step=acc[0]["step"], phase="backward")


# -- numerics: early warnings before the first NaN ---------------------------------------------
def _nan_next_test(run: TraceRun, rec: dict, step: int | None) -> str:
    where = f"{os.path.basename(rec['path'])}:{rec['line']}" if rec.get("path") else "this op"
    later = max(100, 5 * ((step or 0) + 1))
    return (f"mlsleuth nan {run.path or 'SCRIPT'} --max-steps {later}: it stops at the first non-finite value and names the op; "
            f"watch {rec.get('function')} at {where}")


@runtime_check("log-of-near-zero", tool="trace", category="numerical", severity="warning")
def log_of_near_zero(run: TraceRun) -> Iterator[Found]:
    """A log in the training graph receives values at (or one underflow from) zero.

    What it finds: torch.log / Tensor.log (log2, log10) called with gradients on, during the first traced steps, on
    inputs that reached exactly 0 or fell below tiny ** {T.LOG_TINY_POWER:g} of their dtype (about 1e-30 in
    float32), typically the log of a softmax or sigmoid probability computed by hand.
    Why it matters: log(0) is -inf and its gradient 1/x is inf; the next update turns the weights NaN. The values
    only get smaller as the model grows confident, so the run is fine for a while and then breaks.
    How to confirm: print(x.min()) for the log's input over the first steps: it falls by orders of magnitude.
    What to do instead: work in log space (F.log_softmax, F.logsigmoid, F.binary_cross_entropy_with_logits,
    F.cross_entropy on logits), or clamp the input (x.clamp_min(1e-12)) before the log.
    """
    for rec in run.data.get("numerics", []):
        if rec.get("kind") != "log":
            continue
        limit = (rec.get("dtype_tiny") or 1.1754943508222875e-38) ** T.LOG_TINY_POWER
        per_step = rec.get("per_step", [])
        crossed = next((s for s, v in per_step if isinstance(v, (int, float)) and v < limit), None)
        zero_step = rec.get("first_zero_step")
        if crossed is None and zero_step is None:
            continue
        step = min(s for s in (crossed, zero_step) if s is not None)
        trend = ", ".join(f"step {s}: {fmt(v)}" for s, v in per_step[: max(3, step + 2)][:6])
        yield Found(
            f"{rec.get('function')}() in the training graph receives values {'of exactly 0' if zero_step is not None else 'underflowing towards 0'}: "
            "it gives -inf and an infinite gradient, and the weights turn NaN at the next update",
            observation=f"smallest positive input per step ({trend}); {rec.get('zeros', 0)} input(s) exactly 0"
                        + (f" from step {zero_step}" if zero_step is not None else "")
                        + f"; flagged below {fmt(limit)} ({rec.get('dtype')})",
            next_test=_nan_next_test(run, rec, step),
            fix="compute the log in log space (F.log_softmax, F.logsigmoid, a with-logits loss) or clamp the input first (x.clamp_min(1e-12))",
            measurements=rec, module=_mod(rec.get("module")), step=step, op=rec.get("function"), phase="forward", **site_location(run, rec))


@runtime_check("exp-near-overflow", tool="trace", category="numerical", severity="warning")
def exp_near_overflow(run: TraceRun) -> Iterator[Found]:
    """An exp in the training graph receives inputs close to the overflow limit.

    What it finds: torch.exp / Tensor.exp called with gradients on, during the first traced steps, on an input at
    least {T.EXP_NEAR_OVERFLOW:g} x ln(largest value of the dtype) (about 80 in float32, 10 in float16).
    Why it matters: exp overflows to inf a few units later (88.7 in float32); a hand-written softmax or
    log-sum-exp that does not subtract the maximum first then produces inf/inf = NaN.
    How to confirm: print(x.max()) for the exp's input over the first steps.
    What to do instead: subtract the maximum before exp (x - x.amax(dim, keepdim=True)), or use torch.softmax /
    torch.logsumexp.
    """
    for rec in run.data.get("numerics", []):
        if rec.get("kind") != "exp" or not rec.get("limit"):
            continue
        near = T.EXP_NEAR_OVERFLOW * rec["limit"]
        per_step = rec.get("per_step", [])
        step = next((s for s, v in per_step if isinstance(v, (int, float)) and v >= near), None)
        if step is None:
            continue
        trend = ", ".join(f"step {s}: {fmt(v)}" for s, v in per_step[: max(3, step + 2)][:6])
        yield Found(
            "exp() in the training graph receives inputs close to the float overflow: a few units more and it returns inf (then NaN)",
            observation=f"largest input per step ({trend}); flagged at {fmt(near)} (overflow at {fmt(rec['limit'])}, {rec.get('dtype')})",
            next_test=_nan_next_test(run, rec, step),
            fix="subtract the maximum before exp (x - x.amax(dim, keepdim=True)) or use torch.softmax / torch.logsumexp",
            measurements=rec, module=_mod(rec.get("module")), step=step, op="exp", phase="forward", **site_location(run, rec))


@runtime_check("sigmoid-saturated-exactly", tool="trace", category="numerical", severity="info", role="symptom")
def sigmoid_saturated_exactly(run: TraceRun) -> Iterator[Found]:
    """Sigmoid outputs rounded to exactly 0 or 1.

    What it finds: torch.sigmoid / nn.Sigmoid outputs (gradients on, first traced steps) equal to exactly 0.0 or 1.0.
    Why it matters: harmless by itself, but log(p) or log(1 - p) of such a value is -inf: a hand-written binary
    cross-entropy turns NaN as soon as one sample is confident enough. A with-logits loss never sees these values.
    How to confirm: print(((p == 0) | (p == 1)).sum()) for the sigmoid output.
    What to do instead: use F.binary_cross_entropy_with_logits on the logits, or clamp p to [eps, 1 - eps] before a log.
    """
    for rec in run.data.get("numerics", []):
        if rec.get("kind") == "sigmoid" and rec.get("saturated_exact"):
            yield Found(
                "sigmoid outputs rounded to exactly 0 or 1: a later log(p) or log(1 - p) of them is -inf",
                observation=f"{rec['saturated_exact']} of {rec.get('outputs')} outputs were exactly 0 or 1 (first at step {rec.get('first_exact_step')})",
                next_test=_nan_next_test(run, rec, rec.get("first_exact_step")),
                fix="use F.binary_cross_entropy_with_logits on the logits, or clamp p before any log",
                measurements={k: v for k, v in rec.items() if k != "per_step"}, module=_mod(rec.get("module")),
                step=rec.get("first_exact_step"), op="sigmoid", phase="forward", **site_location(run, rec))


# the cross-rank checks of multi-process runs live in their own module (registered on import)
# the PINN checks live in their own module; importing it registers them with the other trace checks
# checks on language-model batches (labels vs input_ids, pads, attention_mask) live in their own module
from mlsleuth.runtime.trace import (
    checks_amp,
    checks_batch_order,  # noqa: F401 - a reordered batch must give reordered outputs
    checks_checkpoints,  # noqa: F401 - checkpoint restores and resumes, also after the traced steps
    checks_frozen,  # noqa: F401 - frozen parameters the optimizer still moves
    checks_ctc,  # noqa: F401 - CTC targets that share the blank's id
    checks_datasets,  # noqa: F401 - a __getitem__ that writes into the stored samples, a __len__ shorter than the data
    checks_generic,  # noqa: F401 - mechanisms many families share: overwritten inputs, untrained tensors, zero outputs
    checks_grad_sync,  # noqa: F401 - gradients summed across ranks where they should be averaged
    checks_identity_acts,  # noqa: F401 - leaky_relu/rrelu/prelu that return their input unchanged
    checks_lm,  # noqa: F401
    checks_loaders,  # noqa: F401 - persistent workers' stale datasets, distributed samplers' seeds
    checks_loop_order,  # noqa: F401 - clipping after the step; backward passes never stepped
    checks_modes,  # noqa: F401 - training steps taken in eval mode
    checks_optimizer_groups,  # noqa: F401 - a parameter group a name filter left empty
    checks_param_iters,  # noqa: F401 - clipping given nothing to clip; parameter generators reused once used up
    checks_split,  # noqa: F401 - evaluation inputs that are near-copies of training inputs
    checks_pinn,  # noqa: F401
    checks_rank_metrics,  # noqa: F401 - per-rank metrics reported without a reduction
    checks_ranks,  # noqa: F401
    checks_rl,  # noqa: F401 - registers the RL checks (kept in their own module)
    checks_seeds,  # noqa: F401 - the global seed reset to an earlier value while training goes on
    checks_terms,  # noqa: F401 - which parameters each backward reaches, with several optimizers
)

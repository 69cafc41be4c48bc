"""Every ``nan`` check: one decorated function each, turning the nan child's JSON into findings.

The child reports what the cheap watcher saw (step and pass of the first
non-finite loss, gradient or parameter, the frames before) and what the
instrumented replay found (the origin). :class:`NanRun` derives what the
checks share (the origin, the trend, the saved batch); exactly one of
``nan-in-batch`` / ``nan-born-forward`` / ``nan-born-backward`` /
``nan-born-optimizer`` names where the first non-finite value came from
(:attr:`NanRun.main_pass`; :data:`MAIN_RULES` lists them). The sentences that explain an operation's failure
live in :mod:`mlsleuth.runtime.nan.explain`. Import-light: no torch here.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property
from typing import Any

from mlsleuth.runtime.common import fmt
from mlsleuth.runtime.nan.explain import (
    describe_where,
    explain_origin,
    merge_frames,
    nonfinite_counts,
    replay_sentence,
    saved_sentence,
    source_of,
    trend,
    trend_sentence,
)
from mlsleuth.runtime.registry import Found, runtime_check


class NanRun:
    """The nan child's payload for one run, and what every check derives from it."""

    def __init__(self, payload: dict[str, Any], *, path: str | None, command: str) -> None:
        self.payload = payload
        self.path = path
        self.command = command

    def location_defaults(self) -> dict[str, Any]:
        return {"path": self.path}

    @cached_property
    def data(self) -> dict[str, Any]:
        return (self.payload.get("observers") or {}).get("nan") or {}

    @cached_property
    def failure(self) -> dict[str, Any] | None:
        return self.data.get("failure")

    @cached_property
    def step(self) -> int:
        return int((self.failure or {}).get("step", 0))

    @cached_property
    def replay_run(self) -> dict[str, Any]:
        return self.payload.get("replay_run") or {}

    @cached_property
    def replay(self) -> dict[str, Any]:
        return ((self.replay_run.get("nan") or {}).get("replay")) or {}

    @cached_property
    def origin(self) -> dict[str, Any] | None:
        return self.replay.get("origin") if self.replay.get("reproduced") else None

    @cached_property
    def trend(self) -> dict[str, Any]:
        return trend(merge_frames(self.data.get("frames") or [], (self.replay_run.get("nan") or {}).get("frames") or []), self.step)

    @cached_property
    def batch_note(self) -> str:
        return saved_sentence(self.data, self.step) + replay_sentence(self.replay_run)

    @cached_property
    def measurements(self) -> dict[str, Any]:
        measurements: dict[str, Any] = {"cheap_watch": self.failure, "trend": self.trend}
        if self.data.get("batch_file"):
            measurements["batch_file"] = self.data.get("batch_file")
            if self.data.get("saved"):
                measurements["saved"] = self.data["saved"]
        if self.replay:
            measurements["replay"] = {k: self.replay.get(k) for k in ("step", "reproduced", "phase", "ops_seen")}
            measurements["origins"] = (self.replay.get("origins") or [])[:6]
        if self.replay_run.get("replayed"):
            measurements.setdefault("replay", {})["replayed_steps"] = self.replay_run["replayed"]
        return measurements

    @cached_property
    def main_kind(self) -> str | None:
        """How the first non-finite value is explained: 'data', 'birth' (an op made it), 'unlocalised', or None (no failure)."""
        if not self.failure:
            return None
        origin = self.origin
        if self.failure.get("phase") == "data" or (origin and origin.get("kind") == "external" and not origin.get("parameter")):
            return "data"
        if origin and origin.get("kind") == "birth":
            return "birth"
        return "unlocalised"

    @cached_property
    def main_pass(self) -> str | None:
        """Where the first non-finite value was born: 'data', 'forward' (loss included), 'backward' or 'optimizer'."""
        kind = self.main_kind
        if kind is None:
            return None
        if kind == "data":
            return "data"
        phase = self.origin.get("phase") if kind == "birth" else self.failure.get("phase")
        return phase if phase in ("backward", "optimizer") else "forward"


def _birth(run: NanRun, born_in: str) -> Found:
    """An operation of the replayed step turned finite inputs into NaN/Inf."""
    origin, failure, replay, step, t = run.origin, run.failure, run.replay, run.step, run.trend
    phase = origin.get("phase")
    observation, test, fix = explain_origin(origin, step)
    line, where = source_of(origin, run.path)
    observation += where
    extra = []
    if born_in == "backward":
        masked = [o for o in replay.get("origins") or [] if o.get("kind") == "birth" and o.get("phase") in ("forward", "loss") and o is not origin and o.get("index") != origin.get("index")]
        if masked:
            m = masked[0]
            extra.append(f"The forward pass also produced non-finite values in {m['op']} ({describe_where(m)}) that were masked out before the loss (e.g. by torch.where); their gradient is where NaN re-enters.")
            fix = (f"torch.where does not stop the gradient of the discarded branch: make the argument of {m['op']} in {describe_where(m)} safe "
                   f"before the op (the double-where pattern: torch.where(mask, x, 1) inside {m['op']}), so both branches stay finite.")
        extra.append(f"The loss of step {step} was finite ({fmt(failure.get('loss'))}).")
    if born_in == "optimizer":
        params = failure.get("parameters") or []
        if params:
            p = params[0]
            state = p.get("state") or {}
            sq = state.get("exp_avg_sq") or {}
            bits = [f"lr={p.get('lr')}"]
            if "eps" in p:
                bits.append(f"eps={p['eps']}")
            if sq:
                bits.append(f"exp_avg_sq has {sq.get('zeros', 0)} zero(s) of {sq.get('numel')}")
            extra.append(f"Gradients were finite; parameter '{p['parameter']}' became non-finite in this update ({', '.join(bits)}).")
    if phase != "backward" and t.get("kind") != "too-few-steps":
        extra.append(trend_sentence(t))
    message = {
        "forward": f"{origin['op']} in {describe_where(origin)} produced the first non-finite value at step {step}",
        "backward": f"the forward pass of step {step} was finite; {origin['op']} in {describe_where(origin)} produced the first non-finite gradient",
        "optimizer": f"the optimizer update at step {step} produced non-finite parameters ({origin['op']})",
    }[born_in]
    return Found(
        message,
        observation=" ".join([observation, *extra]) + run.batch_note,
        measurements={**run.measurements, "origin": origin},
        next_test=test,
        fix=fix,
        step=step, phase=phase, module=origin.get("module"), op=origin.get("op"), line=line,
        parameter=origin.get("parameter") if phase == "optimizer" else None,
    )


def _unlocalised(run: NanRun) -> Found:
    """The cheap watch saw the failure but the replay could not name the operation."""
    failure, replay_run, step = run.failure, run.replay_run, run.step
    phase = failure.get("phase")
    target = {"loss": "the loss", "grad": "a gradient", "param": "a parameter"}.get(failure.get("target"), "a value")
    params = failure.get("parameters") or []
    what = f" ({', '.join(p['parameter'] for p in params[:4])})" if params else ""
    why = (replay_run.get("error") or "the replay did not reproduce the failure") if replay_run else "replay was turned off"
    observation = f"The cheap watch saw {target}{what} turn non-finite at step {step} in the {phase} pass; the operation could not be named: {why}. " + trend_sentence(run.trend)
    loc_phase = phase if phase in ("forward", "backward", "optimizer", "data") else None
    return Found(
        f"the first non-finite value appeared at step {step} in the {phase} pass (operation not localised)",
        observation=observation + run.batch_note,
        measurements=run.measurements,
        next_test=f"Make the run deterministic and run `mlsleuth nan` again to replay step {step} with operation-level instrumentation, or replay it from the saved batch under torch.autograd.set_detect_anomaly(True).",
        step=step, phase=loc_phase, parameter=params[0]["parameter"] if params else None,
    )


def _born(run: NanRun, born_in: str) -> Iterator[Found]:
    """The main finding when the first non-finite value was born in pass ``born_in``."""
    if run.main_pass != born_in:
        return
    if run.main_kind == "birth":
        yield _birth(run, born_in)
    else:
        yield _unlocalised(run)


@runtime_check("nan-in-batch", tool="nan", category="data", severity="error")
def nan_in_batch(run: NanRun) -> Iterator[Found]:
    """The batch itself holds NaN or Inf before the model touches it.

    What it finds: a floating-point field of the batch (model inputs, or a target consumed by the loss)
    that already contains NaN/Inf at the first step where a non-finite value appears, with the field and
    the rows (indices along the batch dimension) that hold it.
    Why it matters: a single NaN feature spreads through every layer and turns the loss and then every
    weight into NaN; lowering the learning rate or adding epsilons cannot help, because the model never
    produced the value.
    How to confirm: load the saved batch file and run `torch.isfinite(t).all(dim=1)` on the reported
    field; then fetch the same indices from the dataset and find the raw record with the missing or
    infinite value.
    What to do instead: fix or drop the records at load time (impute missing values, filter rows whose
    features are not finite), and add a data check `assert torch.isfinite(x).all()` in the dataset code,
    not in the training loop.
    """
    if run.main_pass != "data":
        return
    failure, origin, step = run.failure, run.origin, run.step
    fields = failure.get("fields") or []
    if fields:
        parts = []
        for f in fields[:4]:
            rows = f.get("rows")
            rows_s = f", rows {rows}" + (f" (+{f['rows_total'] - len(rows)} more)" if rows and f.get("rows_total", 0) > len(rows) else "") if rows is not None else ""
            parts.append(f"{f['field']} {f['shape']}: {f.get('nan', 0)} NaN, {f.get('inf', 0)} inf{rows_s}")
        observation = f"At step {step} the batch already held non-finite values before any model operation: " + "; ".join(parts) + "."
        first = fields[0]
        test = f"Load the saved batch and check `torch.isfinite({first['field']}).all(dim=-1)`; then look up those rows in the dataset (batch {step}, rows {first.get('rows')}) and inspect the raw records."
    else:
        arg = (origin or {}).get("arg")
        observation = f"At step {step} a non-finite tensor that no watched operation produced entered {origin.get('op')} (argument '{arg}') in {describe_where(origin)}: {nonfinite_counts(origin.get('input') or {})}. It came from outside the model: typically the targets or extra inputs of the batch."
        test = f"Check torch.isfinite on the tensor passed as '{arg}' to {origin.get('op')} at step {step} (usually the targets)."
    op = None if fields else (origin or {}).get("op")
    message = f"the batch of step {step} contains NaN/Inf: the data, not the model, produced the first non-finite value"
    fix = "Clean the records at load time (impute or drop non-finite values) and assert finiteness in the dataset code."
    if origin and origin.get("kind") == "birth":  # made by the script's own preprocessing before the model ran
        born, test, fix = explain_origin(origin, step)
        observation += " " + born
        op = origin.get("op")
        message = f"the batch of step {step} reached the model with NaN/Inf, made by {op} while the batch was prepared"
    yield Found(
        message,
        observation=observation + run.batch_note,
        measurements=run.measurements,
        next_test=test,
        fix=fix,
        step=step, phase="data", op=op,
    )


@runtime_check("nan-born-forward", tool="nan", category="numerical", severity="error")
def nan_born_forward(run: NanRun) -> Iterator[Found]:
    """A forward (or loss) operation turned finite inputs into NaN/Inf.

    What it finds: the first ATen operation of the failing step whose inputs were all finite and whose
    output was not, and from which the non-finite loss descends: its module, the operation, and
    statistics of its inputs (largest magnitude, zeros in a denominator, negative values fed to log or
    sqrt, the largest argument of exp).
    Why it matters: NaN is an arithmetic failure at one place; everything downstream is a casualty.
    Guarding the loss (`nan_to_num`, skipping the batch) hides the bug and lets it corrupt the weights.
    How to confirm: replay the step from the saved batch and snapshot and print the reported statistic
    of the operation's input (for example the max of the exp argument, or `(std == 0).sum()` for a
    division) just before the operation.
    What to do instead: make that operation stable: a fused stable form (`torch.softmax`,
    `torch.logsumexp`, `F.cross_entropy`, `F.log_softmax`), a clamp on the denominator of that very
    division, or a data fix when the inputs are out of their expected range.
    """
    yield from _born(run, "forward")


@runtime_check("nan-born-backward", tool="nan", category="numerical", severity="error")
def nan_born_backward(run: NanRun) -> Iterator[Found]:
    """The forward pass was finite but a backward formula produced NaN/Inf.

    What it finds: the first backward operation (with the autograd node that ran it, such as
    `SqrtBackward0` or `LogBackward0`, and the module whose forward created it) whose incoming gradient
    was finite but whose output was not, in a step whose loss was finite.
    Why it matters: functions such as sqrt or x**0.5 at 0, log at 0, or a norm at the zero vector are
    finite going forward but have infinite derivatives there; `torch.where` that discards such a branch
    still backpropagates 0 * inf = NaN through it. The loss looks fine, the weights become NaN.
    How to confirm: run the step with `torch.autograd.set_detect_anomaly(True)`; it raises in the
    reported backward node. Or count the inputs of the forward operation that are exactly at the
    singular point (e.g. `(h == 0).all(-1).sum()`).
    What to do instead: use an implementation with a defined gradient at the singular point
    (`torch.linalg.vector_norm`, `F.normalize`), keep the argument away from it in *both* branches
    (the double-`where` pattern), or clamp the argument of that operation.
    """
    yield from _born(run, "backward")


@runtime_check("nan-born-optimizer", tool="nan", category="hyperparameter", severity="error")
def nan_born_optimizer(run: NanRun) -> Iterator[Found]:
    """Gradients were finite, but the optimizer update made parameters NaN/Inf.

    What it finds: a step whose gradients were all finite and whose parameters were finite before
    `optimizer.step()` but not after, with the update operation that produced the value, the learning
    rate, epsilon and the optimizer state of the parameter (e.g. Adam's `exp_avg_sq` zeros).
    Why it matters: the update itself divides by a vanishing quantity (Adam with `eps=0` and a parameter
    whose gradient has always been zero computes 0/0) or takes a step so large that the weights
    overflow (a learning rate far above the stable range).
    How to confirm: compare `p` before and after one `optimizer.step()` on the saved snapshot; print
    the optimizer's `eps`, `lr` and `state[p]` for the reported parameter.
    What to do instead: restore a positive epsilon (1e-8 for float32), lower the learning rate or add
    warm-up, and clip gradients only if their norm really spikes.
    """
    yield from _born(run, "optimizer")


@runtime_check("nan-replay-nondeterministic", tool="nan", category="reproducibility", severity="warning")
def nan_replay_nondeterministic(run: NanRun) -> Iterator[Found]:
    """Replaying the run did not reproduce the first non-finite value.

    What it finds: a replay of the failing step (from a snapshot, or by re-running the script) that
    either stays finite, fails at another step, or whose parameters diverge from the first run before
    the failing step.
    Why it matters: a failure that does not repeat cannot be localised reliably, and each fix attempt is
    judged against noise: unseeded random number generators, non-deterministic kernels,
    `cudnn.benchmark`, shuffling data-loader workers or uninitialised memory change the run each time.
    How to confirm: run the script twice with the same seed and compare the loss of the first steps; they
    should be bit-identical on the same machine.
    What to do instead: seed `random`, `numpy` and `torch` (and data-loader workers through
    `worker_init_fn`/`generator`), call `torch.use_deterministic_algorithms(True)`, set
    `torch.backends.cudnn.benchmark = False`, then run `mlsleuth nan` again.
    """
    replay_run, replay, failure, step = run.replay_run, run.replay, run.failure, run.step
    if not failure or not replay_run or replay_run.get("status") in ("no-snapshot", "replay-failed", "replay-skipped"):
        return
    data = replay_run.get("nan") or {}
    divergence = data.get("divergence")
    replay_failure = data.get("failure")
    reproduced = bool(replay.get("reproduced")) and replay_failure is not None and replay_failure.get("step") == step
    if reproduced and divergence is None:
        return
    bits = []
    if replay_failure is None:
        bits.append(f"the replay ran through step {step} without any non-finite value")
    elif replay_failure.get("step") != step:
        bits.append(f"the replay went non-finite at step {replay_failure.get('step')} instead of {step}")
    if divergence:
        rel = divergence.get("relative_difference")
        bits.append(f"parameters differed from the first run already after step {divergence['step']}" + (f" (relative difference {fmt(rel)})" if rel is not None else ""))
    yield Found(
        "the run is not deterministic: replaying it did not repeat the first run exactly",
        observation="; ".join(bits) + "." + replay_sentence(replay_run),
        measurements={"divergence": divergence, "replay_failure": replay_failure, "replayed_steps": replay_run.get("replayed")},
        next_test=f"Seed random, numpy and torch at the top of the script, set torch.use_deterministic_algorithms(True), torch.backends.cudnn.benchmark = False and num_workers=0 (or seeded workers), then run `{run.command}` again.",
        fix="Make the run reproducible first; a failure that moves between runs cannot be pinned to one operation.",
        step=step,
    )


@runtime_check("nan-amp-overflow-skip", tool="nan", category="numerical", severity="info")
def nan_amp_overflow_skip(run: NanRun) -> Iterator[Found]:
    """Mixed-precision GradScaler found Inf gradients and skipped the step (normal behaviour).

    What it finds: steps where `GradScaler` saw non-finite scaled gradients, skipped `optimizer.step()`
    and lowered its scale.
    Why it matters: this is how dynamic loss scaling probes the largest safe scale; an occasional skip is
    expected. Only a scaler that keeps skipping (the scale collapsing towards zero) points to a real
    overflow in the model.
    How to confirm: log `scaler.get_scale()` per step; it should settle after the first few skips.
    What to do instead: nothing for occasional skips. If the scale keeps falling, look for the operation
    that overflows in float16 (run `mlsleuth nan` without autocast, or use bfloat16).
    """
    scaler = run.data.get("scaler_events") or []
    if scaler:
        total = run.data.get("scaler_events_total", len(scaler))
        yield Found(
            f"GradScaler skipped {total} step(s) after finding inf gradients and lowered its scale; this is normal dynamic loss scaling",
            observation="; ".join(f"step {e['step']}: scale {fmt(e['scale_before'])} -> {fmt(e['scale_after'])}" for e in scaler[:5]),
            measurements={"events": scaler[:20], "total": total},
            next_test="Log scaler.get_scale() per step: it should settle after a few skips; a scale that keeps falling means a real overflow.",
            step=scaler[0].get("step"), phase="backward",
        )


# the checks of which exactly one names where a failing run's first non-finite value came from
MAIN_RULES = tuple(f.check.id for f in (nan_in_batch, nan_born_forward, nan_born_backward, nan_born_optimizer))

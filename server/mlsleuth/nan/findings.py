"""Turn the nan harness's JSON into findings (parent side; no torch).

The harness reports what the cheap watcher saw (step and pass of the first
non-finite loss, gradient or parameter, the frames before) and what the
instrumented replay found (the origin: the operation that made the first
non-finite value from finite inputs, or the external tensor that brought it
in). This module reads the operation's input statistics and says, in numbers,
why that operation failed and which test confirms it.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from mlsleuth.report import Finding, Location
from mlsleuth.runtime.common import fmt

# log(float32 max) and log(float16 max): exp overflows above these arguments
EXP_LIMIT = {"float32": 88.72, "float16": 11.09, "bfloat16": 88.72, "float64": 709.78}
DENOMINATOR = {"aten::div": "other", "aten::div_": "other", "aten::addcdiv": "tensor2", "aten::addcdiv_": "tensor2",
               "aten::reciprocal": "self", "aten::reciprocal_": "self", "aten::rsqrt": "self", "aten::rsqrt_": "self",
               "aten::_foreach_div": "other", "aten::_foreach_addcdiv_": "tensor2", "aten::_foreach_div_": "other"}
EXP_OPS = {"aten::exp", "aten::exp_", "aten::exp2", "aten::expm1", "aten::_softmax", "aten::sinh", "aten::cosh"}
LOG_OPS = {"aten::log", "aten::log_", "aten::log2", "aten::log10", "aten::log1p", "aten::xlogy", "aten::special_xlog1py"}
ROOT_OPS = {"aten::sqrt", "aten::sqrt_", "aten::rsqrt", "aten::pow", "aten::pow_"}
SINGULAR_NODES = {
    "SqrtBackward0": "the derivative of sqrt(x) is 1/(2*sqrt(x)), infinite at x = 0",
    "RsqrtBackward0": "the derivative of rsqrt(x) is infinite at x = 0",
    "PowBackward0": "the derivative of x**p with p < 1 is infinite at x = 0",
    "PowBackward1": "the derivative of a**x involves log(a), infinite at a = 0",
    "LogBackward0": "the derivative of log(x) is 1/x, which divides by zero at x = 0",
    "DivBackward0": "the derivative of a/b divides by b**2, which vanishes with b",
    "NormBackward1": "the derivative of a norm divides by the norm, zero at the zero vector",
    "AcosBackward0": "the derivative of acos is infinite at |x| = 1",
    "AsinBackward0": "the derivative of asin is infinite at |x| = 1",
    "AtanhBackward0": "the derivative of atanh is infinite at |x| = 1",
}


def _input(origin: dict[str, Any], arg: str) -> dict[str, Any] | None:
    for inp in origin.get("inputs") or []:
        if inp.get("arg") == arg:
            return inp
    return None


def _nonfinite_counts(stats: dict[str, Any]) -> str:
    bits = [f"{stats[k]} {label}" for k, label in (("nan", "NaN"), ("posinf", "+inf"), ("neginf", "-inf")) if stats.get(k)]
    return ", ".join(bits) + f" of {stats.get('numel', '?')} elements" if bits else "no non-finite elements"


def _where(origin: dict[str, Any]) -> str:
    module = origin.get("module")
    if origin.get("phase") == "backward":
        node = origin.get("autograd_node") or "a backward node"
        return f"{node}" + (f" (backward of module '{module}')" if module else "")
    if origin.get("phase") == "optimizer":
        return "the optimizer update" + (f" of parameter '{origin['parameter']}'" if origin.get("parameter") else "")
    if module:
        return f"module '{module}'"
    return "the loss computation (outside any module)" if origin.get("phase") == "loss" else f"the {origin.get('phase')} pass"


def forward_op_of(node: str) -> str | None:
    """``'SqrtBackward0'`` -> ``'aten::sqrt'`` (the forward op whose derivative the node computes)."""
    import re

    m = re.match(r"^([A-Za-z]+?)Backward\d*$", node or "")
    if not m:
        return None
    return "aten::" + re.sub(r"(?<!^)(?=[A-Z])", "_", m.group(1)).lower()


def explain_origin(origin: dict[str, Any], step: int) -> tuple[str, str, str]:
    """``(observation, next_test, fix)`` for a birth record, from its op and input statistics."""
    op = origin.get("op", "?")
    where = _where(origin)
    out = origin.get("output") or {}
    obs = [f"{op} in {where} at step {step} turned finite inputs into {_nonfinite_counts(out)}."]
    test = ""
    fix = ""
    dtype = ((origin.get("inputs") or [{}])[0]).get("dtype", "float32")
    if op in EXP_OPS:
        x = _input(origin, "self") or {}
        limit = EXP_LIMIT.get(dtype, 88.72)
        obs.append(f"Largest argument of exp: {fmt(x.get('max'))} (exp overflows {dtype} above {limit}).")
        test = f"Print the max of the argument of {op} in {where} on the saved batch: values above {limit} overflow. Subtracting the row max first should make the step finite."
        fix = f"Replace the hand-written exp in {where} by torch.softmax / torch.logsumexp / F.log_softmax, or subtract the max before {op}."
    elif op in DENOMINATOR:
        den_arg = DENOMINATOR[op]
        den = _input(origin, den_arg) or {}
        num_arg = "tensor1" if "addcdiv" in op else ("self" if den_arg != "self" else None)
        num = (_input(origin, num_arg) if num_arg else None) or {}
        obs.append(f"Denominator ({den_arg}): {den.get('zeros', 0)} exact zero(s) of {den.get('numel', '?')}, smallest non-zero |value| {fmt(den.get('min_abs_nonzero'))}.")
        if num:
            obs.append(f"Numerator: {num.get('zeros', 0)} zero(s), max |value| {fmt(num.get('max_abs'))} (0/0 gives NaN, x/0 gives inf).")
        test = f"At step {step}, count `(denominator == 0).sum()` for {op} in {where}; find which rows of the batch give a zero denominator."
        fix = f"Guard the denominator of {op} in {where} (clamp it away from zero, or treat the zero case explicitly)."
        if origin.get("phase") == "optimizer":
            test = f"Print the optimizer's eps and `state[p]['exp_avg_sq'].min()` for '{origin.get('parameter')}' before step {step}; a zero second moment with eps=0 gives 0/0 in {op}."
            fix = f"Use a positive eps (e.g. 1e-8) so that {op} in the update of '{origin.get('parameter')}' never divides by zero."
    elif op in LOG_OPS:
        x = _input(origin, "self") or {}
        obs.append(f"Input of the log: {x.get('zeros', 0)} zero(s) and {x.get('negatives', 0)} negative value(s) of {x.get('numel', '?')}; min {fmt(x.get('min'))}.")
        test = f"Print `(x <= 0).sum()` for the input of {op} in {where} on the saved batch; log(0) = -inf and log(x<0) = NaN."
        fix = f"Compute the log in a stable fused form (F.log_softmax, F.cross_entropy, torch.logsumexp) or clamp the input of {op} in {where} to a positive minimum."
    elif op in ROOT_OPS:
        x = _input(origin, "self") or {}
        obs.append(f"Input: {x.get('negatives', 0)} negative value(s), {x.get('zeros', 0)} zero(s) of {x.get('numel', '?')}; min {fmt(x.get('min'))}.")
        test = f"Print `(x < 0).sum()` for the input of {op} in {where}: a negative argument gives NaN."
        fix = f"Keep the argument of {op} in {where} non-negative (clamp, or square-then-sum in a stable order)."
    else:
        biggest = max(((inp.get("max_abs") or 0.0) for inp in origin.get("inputs") or []), default=0.0)
        dmax = ((origin.get("inputs") or [{}])[0]).get("dtype_max")
        obs.append(f"Largest input magnitude: {fmt(biggest)}" + (f" (the {dtype} maximum is {fmt(dmax)})." if dmax else "."))
        if biggest and dmax and biggest > 1e-6 * dmax ** 0.5:
            obs.append("The inputs are large enough for the result to overflow: values were already growing before this step.")
        test = f"Print the magnitude of the inputs of {op} in {where} over the steps before {step}; check whether they grow step after step."
        fix = f"Find why the inputs of {op} grew (learning rate, initialisation, missing normalisation) rather than guarding {op} itself."
    if origin.get("phase") == "backward":
        node = origin.get("autograd_node") or ""
        reason = SINGULAR_NODES.get(node)
        if reason:
            obs.append(f"In {node}: {reason}.")
        fwd = forward_op_of(node) or f"the forward operation behind {node or op}"
        module = origin.get("module")
        inside = f" in module '{module}'" if module else ""
        test = (f"Run the step with torch.autograd.set_detect_anomaly(True): it should raise in {node or op} (its {op} is where the gradient turns non-finite). "
                f"Count the elements of the input of {fwd}{inside} at or next to its singular point (e.g. `(x.abs() < 1e-30).sum()`).")
        fix = f"Give {fwd}{inside} an argument that stays away from its singular point, or use a form whose gradient is defined there"
        if node.startswith(("Sqrt", "Rsqrt", "Pow", "Norm")):
            fix += " (torch.linalg.vector_norm or F.normalize instead of a hand-written sqrt of a sum of squares)."
        elif node.startswith("Log"):
            fix += f" (clamp the input of {fwd} to a positive minimum, or compute it with torch.logsumexp / F.log_softmax)."
        elif node.startswith("Div"):
            fix += f" (clamp the denominator of {fwd} away from zero in both branches of any torch.where)."
        else:
            fix += "."
    return " ".join(obs), test, fix


def trend(frames: list[dict[str, Any]], failure_step: int) -> dict[str, Any]:
    """Classify the steps before the failure: steady growth, a sudden jump, or no precursor."""
    before = [f for f in frames if isinstance(f.get("step"), int) and f["step"] < failure_step]
    series: dict[str, list[float]] = {}
    for key in ("grad_norm", "param_norm", "loss"):
        values = [f.get(key) for f in before]
        values = [abs(v) for v in values if isinstance(v, (int, float)) and math.isfinite(v)]
        if values:
            series[key] = values
    layers: dict[str, list[float]] = {}
    for f in before:
        for name, vals in (f.get("layers") or {}).items():
            v = vals.get("act_rms")
            if isinstance(v, (int, float)) and math.isfinite(v):
                layers.setdefault(name, []).append(v)
    result: dict[str, Any] = {"steps": [f["step"] for f in before], "series": {k: [round(x, 6) for x in v] for k, v in series.items()}}
    if layers:
        result["activation_rms"] = {k: [round(x, 6) for x in v] for k, v in list(layers.items())[:8]}
    probe = series.get("grad_norm") or series.get("loss")
    if not probe or len(probe) < 3:
        result["kind"] = "too-few-steps"
        return result
    first, last = probe[0], probe[-1]
    ratios = [b / a for a, b in itertools.pairwise(probe) if a > 0]
    growing = sum(r > 1.0 for r in ratios)
    if first > 0 and last / first >= 10 and growing >= 0.7 * len(ratios):
        result["kind"] = "steady-growth"
        result["growth_per_step"] = round((last / first) ** (1 / max(len(probe) - 1, 1)), 3)
    else:
        result["kind"] = "no-precursor"
    return result


def trend_sentence(t: dict[str, Any]) -> str:
    kind = t.get("kind")
    if kind == "steady-growth":
        s = t["series"].get("grad_norm") or t["series"].get("loss")
        return (f"Frames before: the gradient norm grew steadily over {len(s)} steps ({fmt(s[0])} -> {fmt(s[-1])}, "
                f"about x{t['growth_per_step']} per step): a slow explosion, not one bad batch.")
    if kind == "no-precursor":
        return "Frames before: no growth in loss or gradient norm before the failing step: a sudden event (this batch or this operation), not a slow explosion."
    return "Frames before: too few steps before the failure to tell growth from a sudden jump."


def merge_frames(first: list[dict[str, Any]], replayed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The first run's frames, with the per-layer activation RMS that only the replay measures added by step."""
    acts = {f.get("step"): f.get("layers") or {} for f in replayed}
    merged = []
    for f in first:
        extra = acts.get(f.get("step"))
        if extra:
            layers = {name: dict(vals) for name, vals in (f.get("layers") or {}).items()}
            for name, vals in extra.items():
                if "act_rms" in vals:
                    layers.setdefault(name, {})["act_rms"] = vals["act_rms"]
            f = {**f, "layers": layers}
        merged.append(f)
    return merged


def _span(first: int, last: int) -> str:
    return f"step {first}" if first == last else f"steps {first}-{last}"


def replay_sentence(replay_run: dict[str, Any]) -> str:
    """Which steps the replay ran, from where, and how each was checked."""
    r = replay_run.get("replayed") or {}
    if not r:
        return ""
    first, failing = r.get("first"), r.get("failing")
    if not isinstance(first, int) or not isinstance(failing, int):
        return ""
    start = (f"from the snapshot taken at the start of step {first}" if r.get("from") == "snapshot"
             else "by running the script again from its start")
    text = f" Replayed {_span(first, failing)} {start}"
    if failing > first:
        text += f": {_span(first, failing - 1)} with the cheap checks (parameters compared with the first run after each), step {failing} with every operation checked."
    else:
        text += " with every operation checked."
    return text


def saved_sentence(data: dict[str, Any], step: int) -> str:
    """Where the offending batch went, what it holds and which steps the saved snapshot replays."""
    batch_file = data.get("batch_file")
    if not batch_file:
        return ""
    saved = data.get("saved") or {}
    kind = saved.get("batch_kind") or data.get("batch_kind")
    if kind == "model-call":
        what = "the arguments of the model's first call in that step"
        if not saved.get("targets_captured", data.get("targets_captured")):
            what += " (not the loss targets: the loss is not computed by a torch.nn loss module, so mlsleuth cannot see them)"
        else:
            what += " and the target given to the loss module"
    else:
        what = "inputs and targets"
    text = f" The batch of step {step} (index {step}: {what}) is saved in {batch_file}"
    snap_step, steps = saved.get("snapshot_step"), saved.get("replay_steps")
    if isinstance(snap_step, int) and steps:
        text += (f" with the model, optimizer and RNG state at the start of step {snap_step} and the batches of {_span(steps[0], steps[-1])}: "
                 "load them and run those steps to reproduce the failure.")
    elif saved.get("missing_batches"):
        text += f"; the snapshot of step {snap_step} lacks the batches of steps {saved['missing_batches'][:5]} (memory budget)."
    else:
        text += " (torch.load it to replay the step)."
    return text


def build_findings(payload: dict[str, Any], *, path: str | None, command: str) -> list[Finding]:
    """Findings for one nan run (empty when no non-finite value appeared)."""
    data = (payload.get("observers") or {}).get("nan") or {}
    findings: list[Finding] = []
    scaler = data.get("scaler_events") or []
    if scaler:
        total = data.get("scaler_events_total", len(scaler))
        findings.append(Finding(
            rule="nan-amp-overflow-skip", category="numerical", severity="info",
            message=f"GradScaler skipped {total} step(s) after finding inf gradients and lowered its scale; this is normal dynamic loss scaling",
            location=Location(path=path, step=scaler[0].get("step"), phase="backward"),
            observation="; ".join(f"step {e['step']}: scale {fmt(e['scale_before'])} -> {fmt(e['scale_after'])}" for e in scaler[:5]),
            measurements={"events": scaler[:20], "total": total},
            next_test="Log scaler.get_scale() per step: it should settle after a few skips; a scale that keeps falling means a real overflow.",
        ))
    failure = data.get("failure")
    if not failure:
        return findings
    step = int(failure.get("step", 0))
    replay_run = payload.get("replay_run") or {}
    replay = ((replay_run.get("nan") or {}).get("replay")) or {}
    origin = replay.get("origin") if replay.get("reproduced") else None
    t = trend(merge_frames(data.get("frames") or [], (replay_run.get("nan") or {}).get("frames") or []), step)
    batch_file = data.get("batch_file")
    batch_note = saved_sentence(data, step) + replay_sentence(replay_run)
    measurements: dict[str, Any] = {"cheap_watch": failure, "trend": t}
    if batch_file:
        measurements["batch_file"] = batch_file
        if data.get("saved"):
            measurements["saved"] = data["saved"]
    if replay:
        measurements["replay"] = {k: replay.get(k) for k in ("step", "reproduced", "phase", "ops_seen")}
        measurements["origins"] = (replay.get("origins") or [])[:6]
    if replay_run.get("replayed"):
        measurements.setdefault("replay", {})["replayed_steps"] = replay_run["replayed"]

    phase = failure.get("phase")
    if phase == "data" or (origin and origin.get("kind") == "external" and not origin.get("parameter")):
        findings.append(_data_finding(failure, origin, step, path, batch_note, measurements))
    elif origin and origin.get("kind") == "birth":
        findings.append(_birth_finding(origin, failure, replay, step, path, batch_note, measurements, t))
    else:
        findings.append(_unlocalised_finding(failure, origin, replay_run, step, path, batch_note, measurements, t))
    nondet = _nondeterminism(replay_run, replay, failure, step, path, command)
    if nondet is not None:
        findings.append(nondet)
    return findings


def _data_finding(failure, origin, step, path, batch_note, measurements) -> Finding:
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
        observation = f"At step {step} a non-finite tensor that no watched operation produced entered {origin.get('op')} (argument '{arg}') in {_where(origin)}: {_nonfinite_counts(origin.get('input') or {})}. It came from outside the model: typically the targets or extra inputs of the batch."
        test = f"Check torch.isfinite on the tensor passed as '{arg}' to {origin.get('op')} at step {step} (usually the targets)."
    op = None if fields else (origin or {}).get("op")
    message = f"the batch of step {step} contains NaN/Inf: the data, not the model, produced the first non-finite value"
    fix = "Clean the records at load time (impute or drop non-finite values) and assert finiteness in the dataset code."
    if origin and origin.get("kind") == "birth":  # made by the script's own preprocessing before the model ran
        born, test, fix = explain_origin(origin, step)
        observation += " " + born
        op = origin.get("op")
        message = f"the batch of step {step} reached the model with NaN/Inf, made by {op} while the batch was prepared"
    return Finding(
        rule="nan-in-batch", category="data", severity="error",
        message=message,
        location=Location(path=path, step=step, phase="data", op=op),
        observation=observation + batch_note,
        measurements=measurements,
        next_test=test,
        fix=fix,
    )


def _birth_finding(origin, failure, replay, step, path, batch_note, measurements, t) -> Finding:
    phase = origin.get("phase")
    rule = {"backward": "nan-born-backward", "optimizer": "nan-born-optimizer"}.get(phase, "nan-born-forward")
    category = "hyperparameter" if rule == "nan-born-optimizer" else "numerical"
    observation, test, fix = explain_origin(origin, step)
    extra = []
    if rule == "nan-born-backward":
        masked = [o for o in replay.get("origins") or [] if o.get("kind") == "birth" and o.get("phase") in ("forward", "loss") and o is not origin and o.get("index") != origin.get("index")]
        if masked:
            m = masked[0]
            extra.append(f"The forward pass also produced non-finite values in {m['op']} ({_where(m)}) that were masked out before the loss (e.g. by torch.where); their gradient is where NaN re-enters.")
            fix = (f"torch.where does not stop the gradient of the discarded branch: make the argument of {m['op']} in {_where(m)} safe "
                   f"before the op (the double-where pattern: torch.where(mask, x, 1) inside {m['op']}), so both branches stay finite.")
        extra.append(f"The loss of step {step} was finite ({fmt(failure.get('loss'))}).")
    if rule == "nan-born-optimizer":
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
        "nan-born-forward": f"{origin['op']} in {_where(origin)} produced the first non-finite value at step {step}",
        "nan-born-backward": f"the forward pass of step {step} was finite; {origin['op']} in {_where(origin)} produced the first non-finite gradient",
        "nan-born-optimizer": f"the optimizer update at step {step} produced non-finite parameters ({origin['op']})",
    }[rule]
    return Finding(
        rule=rule, category=category, severity="error", message=message,
        location=Location(path=path, step=step, phase=phase, module=origin.get("module"), op=origin.get("op"),
                          parameter=origin.get("parameter") if phase == "optimizer" else None),
        observation=" ".join([observation, *extra]) + batch_note,
        measurements={**measurements, "origin": origin},
        next_test=test,
        fix=fix,
    )


def _unlocalised_finding(failure, origin, replay_run, step, path, batch_note, measurements, t) -> Finding:
    phase = failure.get("phase")
    rule = {"backward": "nan-born-backward", "optimizer": "nan-born-optimizer"}.get(phase, "nan-born-forward")
    target = {"loss": "the loss", "grad": "a gradient", "param": "a parameter"}.get(failure.get("target"), "a value")
    params = failure.get("parameters") or []
    what = f" ({', '.join(p['parameter'] for p in params[:4])})" if params else ""
    why = (replay_run.get("error") or "the replay did not reproduce the failure") if replay_run else "replay was turned off"
    observation = f"The cheap watch saw {target}{what} turn non-finite at step {step} in the {phase} pass; the operation could not be named: {why}. " + trend_sentence(t)
    loc_phase = phase if phase in ("forward", "backward", "optimizer", "data") else None
    return Finding(
        rule=rule, category="hyperparameter" if rule == "nan-born-optimizer" else "numerical", severity="error",
        message=f"the first non-finite value appeared at step {step} in the {phase} pass (operation not localised)",
        location=Location(path=path, step=step, phase=loc_phase, parameter=params[0]["parameter"] if params else None),
        observation=observation + batch_note,
        measurements=measurements,
        next_test=f"Make the run deterministic and run `mlsleuth nan` again to replay step {step} with operation-level instrumentation, or replay it from the saved batch under torch.autograd.set_detect_anomaly(True).",
    )


def _nondeterminism(replay_run, replay, failure, step, path, command) -> Finding | None:
    if not replay_run or replay_run.get("status") in ("no-snapshot", "replay-failed"):
        return None
    data = replay_run.get("nan") or {}
    divergence = data.get("divergence")
    replay_failure = data.get("failure")
    reproduced = bool(replay.get("reproduced")) and replay_failure is not None and replay_failure.get("step") == step
    if reproduced and divergence is None:
        return None
    bits = []
    if replay_failure is None:
        bits.append(f"the replay ran through step {step} without any non-finite value")
    elif replay_failure.get("step") != step:
        bits.append(f"the replay went non-finite at step {replay_failure.get('step')} instead of {step}")
    if divergence:
        rel = divergence.get("relative_difference")
        bits.append(f"parameters differed from the first run already after step {divergence['step']}" + (f" (relative difference {fmt(rel)})" if rel is not None else ""))
    return Finding(
        rule="nan-replay-nondeterministic", category="reproducibility", severity="warning",
        message="the run is not deterministic: replaying it did not repeat the first run exactly",
        location=Location(path=path, step=step),
        observation="; ".join(bits) + "." + replay_sentence(replay_run),
        measurements={"divergence": divergence, "replay_failure": replay_failure, "replayed_steps": replay_run.get("replayed")},
        next_test=f"Seed random, numpy and torch at the top of the script, set torch.use_deterministic_algorithms(True), torch.backends.cudnn.benchmark = False and num_workers=0 (or seeded workers), then run `{command}` again.",
        fix="Make the run reproducible first; a failure that moves between runs cannot be pinned to one operation.",
    )

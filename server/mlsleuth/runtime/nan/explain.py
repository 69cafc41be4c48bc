"""Explain a ``nan`` run in words and numbers (parent side; no torch).

The child reports what the cheap watcher saw (step and pass of the first
non-finite loss, gradient or parameter, the frames before) and what the
instrumented replay found (the origin: the operation that made the first
non-finite value from finite inputs, or the external tensor that brought it
in). This module reads the operation's input statistics and says, in numbers,
why that operation failed and which test confirms it; the checks that use
it are in :mod:`mlsleuth.runtime.nan.checks`.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from mlsleuth.runtime.common import fmt

# log(float32 max) and log(float16 max): exp overflows above these arguments
EXP_LIMIT = {"float32": 88.72, "float16": 11.09, "bfloat16": 88.72, "float64": 709.78}
DENOMINATOR = {"aten::div": "other", "aten::div_": "other", "aten::addcdiv": "tensor2", "aten::addcdiv_": "tensor2",
               "aten::reciprocal": "self", "aten::reciprocal_": "self", "aten::rsqrt": "self", "aten::rsqrt_": "self",
               "aten::_foreach_div": "other", "aten::_foreach_addcdiv_": "tensor2", "aten::_foreach_div_": "other"}
DIVISIONS = {"aten::div", "aten::div_", "aten::true_divide", "aten::reciprocal"}  # what normalises by a sum
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


def nonfinite_counts(stats: dict[str, Any]) -> str:
    bits = [f"{stats[k]} {label}" for k, label in (("nan", "NaN"), ("posinf", "+inf"), ("neginf", "-inf")) if stats.get(k)]
    return ", ".join(bits) + f" of {stats.get('numel', '?')} elements" if bits else "no non-finite elements"


def describe_where(origin: dict[str, Any]) -> str:
    module = origin.get("module")
    if origin.get("phase") == "backward":
        node = origin.get("autograd_node") or "a backward node"
        return f"{node}" + (f" (backward of module '{module}')" if module else "")
    if origin.get("phase") == "optimizer":
        return "the optimizer update" + (f" of parameter '{origin['parameter']}'" if origin.get("parameter") else "")
    if module:
        return f"module '{module}'"
    return "the loss computation (outside any module)" if origin.get("phase") == "loss" else f"the {origin.get('phase')} pass"


def source_of(origin: dict[str, Any], path: str | None) -> tuple[int | None, str]:
    """The line of the user's script where the operation ran (when it is that script), and a sentence naming it."""
    import os

    src = origin.get("source") or {}
    file, line = src.get("file"), src.get("line")
    if not file or not isinstance(line, int):
        return None, ""
    in_script = bool(path) and (file == path or file.endswith(os.sep + str(path).lstrip("./")))
    shown = path if in_script else file
    code = f" (`{src['code']}`)" if src.get("code") else ""
    verb = "was called from" if origin.get("phase") == "backward" else "ran at"
    return (line if in_script else None), f" The operation {verb} {shown}:{line}{code}."


def forward_op_of(node: str) -> str | None:
    """``'SqrtBackward0'`` -> ``'aten::sqrt'`` (the forward op whose derivative the node computes)."""
    import re

    m = re.match(r"^([A-Za-z]+?)Backward\d*$", node or "")
    if not m:
        return None
    return "aten::" + re.sub(r"(?<!^)(?=[A-Z])", "_", m.group(1)).lower()


def feeds_a_normalisation(origin: dict[str, Any]) -> bool:
    """Whether a born exp is a softmax: torch's own, or values summed and divided by that sum.

    ``consumers`` lists the operations the non-finite values spread through
    (recorded by the child); a sum followed by a division is the normalisation
    of a hand-written softmax. A record without them (older child) counts as one
    when the op is the fused softmax.
    """
    if origin.get("op") == "aten::_softmax":
        return True
    consumers = [c.split(".")[0] for c in origin.get("consumers") or []]
    if "aten::sum" in consumers:
        after = consumers[consumers.index("aten::sum") + 1:]
        return any(c in DIVISIONS for c in after)
    return False


def consumers_text(origin: dict[str, Any]) -> str:
    """``': its values flow into aten::add, aten::log'`` (the forward consumers, at most four)."""
    names = [c for c in origin.get("consumers") or [] if c not in ("aten::detach", "aten::alias") and not c.endswith("_like")][:4]
    return f": its values flow into {', '.join(names)}" if names else ""


def explain_origin(origin: dict[str, Any], step: int) -> tuple[str, str, str]:
    """``(observation, next_test, fix)`` for a birth record, from its op and input statistics."""
    op = origin.get("op", "?")
    where = describe_where(origin)
    out = origin.get("output") or {}
    obs = [f"{op} in {where} at step {step} turned finite inputs into {nonfinite_counts(out)}."]
    test = ""
    fix = ""
    dtype = ((origin.get("inputs") or [{}])[0]).get("dtype", "float32")
    if op in EXP_OPS:
        x = _input(origin, "self") or {}
        limit = EXP_LIMIT.get(dtype, 88.72)
        obs.append(f"Largest argument of exp: {fmt(x.get('max'))} (exp overflows {dtype} above {limit}).")
        if feeds_a_normalisation(origin):
            test = f"Print the max of the argument of {op} in {where} on the saved batch: values above {limit} overflow. Subtracting the row max first should make the step finite."
            fix = f"Replace the hand-written softmax in {where} by torch.softmax / F.log_softmax (they subtract the row max), or subtract the max before {op}."
        else:
            fed = consumers_text(origin)
            obs.append(f"The exp is not normalised by its own sum (not a softmax){fed}.")
            test = (f"Print the max of the argument of {op} in {where} on the saved batch: values above {limit} overflow. "
                    f"Compute the same quantity in log space on that batch (e.g. torch.logsumexp or F.softplus of the argument): it should stay finite.")
            fix = (f"Stay in log space instead of materialising {op} in {where}: log(sum(exp(x))) -> torch.logsumexp(x, dim); "
                   f"log(1 + exp(x)) -> F.softplus(x); log(sigmoid(x)) -> F.logsigmoid(x); a loss on probabilities -> its logits form "
                   f"(F.binary_cross_entropy_with_logits, F.cross_entropy); a ratio exp(a)/exp(b) -> exp(a - b) with a - b kept small.")
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

"""Turn the trace observer's measurements (child JSON) into findings.

All inference happens here, with the thresholds of :mod:`mlsleuth.runtime.thresholds`;
each check id is documented in :mod:`mlsleuth.runtime.checks`.
"""

from __future__ import annotations

import math
from typing import Any

from mlsleuth.report import Finding, Location
from mlsleuth.runtime import thresholds as T
from mlsleuth.runtime.common import fmt, group_by_module

LOSS_LABEL = {"cross_entropy": "F.cross_entropy / nn.CrossEntropyLoss", "nll_loss": "F.nll_loss / nn.NLLLoss",
              "binary_cross_entropy": "F.binary_cross_entropy / nn.BCELoss",
              "binary_cross_entropy_with_logits": "F.binary_cross_entropy_with_logits / nn.BCEWithLogitsLoss"}


class _Builder:
    def __init__(self, path: str | None, runner_cmd: str) -> None:
        self.path = path
        self.cmd = runner_cmd
        self.findings: list[Finding] = []

    def add(self, rule: str, category: str, severity: str, message: str, *, observation: str, next_test: str,
            fix: str | None = None, measurements: dict | None = None, **loc: Any) -> None:
        self.findings.append(Finding(
            rule=rule, category=category, severity=severity, message=message, observation=observation,
            next_test=next_test, fix=fix, measurements=measurements or {},
            location=Location(path=self.path, **{k: v for k, v in loc.items() if v is not None}),
        ))


def _mod(name: str | None) -> str | None:
    return name if name else None


def trace_findings(data: dict[str, Any], *, path: str | None, command: str) -> list[Finding]:
    """``data`` is ``payload["observers"]["trace"]``; ``command`` re-runs the trace (for next_test text)."""
    b = _Builder(path, command)
    params = data.get("params", [])
    steps = max((p.get("steps_seen", 0) for p in params), default=0)
    _call_sequence(b, data)
    _lr(b, data)
    _gradients(b, data, params, steps)
    _activations(b, data)
    _loss(b, data)
    _data(b, data)
    _evaluation(b, data)
    _structure(b, data)
    _optimizer(b, data, steps)
    return b.findings


# -- call sequence ------------------------------------------------------------------
def _call_sequence(b: _Builder, d: dict) -> None:
    seqs = d.get("sequences", [])
    legend = "F forward, B backward, Z zero_grad, S optimizer.step, L scheduler.step"
    stale = d.get("stale_grad_steps", [])
    if stale:
        first = stale[0]
        b.add("zero-grad-missing", "training-loop", "error",
              "gradients accumulate across optimizer steps: zero_grad() is missing (or called on an object that does not own these parameters)",
              observation=f"at the first backward of step {first['step']}, {first['count']} optimizer parameter(s) still held the previous step's "
                          f"non-zero gradients (e.g. {', '.join(p for p in first['params'] if p) or 'unnamed'}); this happened on "
                          f"{d.get('stale_grad_step_count', len(stale))} step(s). Call sequence per step ({legend}): {' | '.join(seqs[:4])}",
              next_test="print(p.grad.norm()) for one parameter right before loss.backward() on two consecutive steps: it should be 0 or None",
              fix="call optimizer.zero_grad() once per step, before loss.backward() (or after optimizer.step())",
              measurements={"steps_with_stale_grads": d.get("stale_grad_step_count"), "sequences": seqs[:10]},
              step=first["step"], phase="backward", parameter=first["params"][0] if first["params"] else None)
    mis = d.get("misplaced_zero_grad", [])
    if mis:
        b.add("zero-grad-before-step", "training-loop", "error",
              "zero_grad() runs between backward() and step(): the optimizer steps with zero gradients, so nothing learns",
              observation=f"on step(s) {', '.join(map(str, mis[:5]))} the call order was {seqs[mis[0]] if mis[0] < len(seqs) else '?'} ({legend}): a Z after the last B and before S",
              next_test="print(sum(p.grad.abs().sum() for p in model.parameters() if p.grad is not None)) just before optimizer.step(): it is 0",
              fix="order each step as zero_grad() -> forward -> loss.backward() -> optimizer.step()",
              measurements={"steps": mis[:20], "sequences": seqs[:10]}, step=mis[0], phase="optimizer")
    nob = d.get("step_without_backward", [])
    if nob:
        b.add("step-without-backward", "training-loop", "warning",
              "optimizer.step() ran with no backward() since the previous step: that step used stale or no gradients",
              observation=f"no backward between steps on step(s) {', '.join(map(str, nob[:5]))}; sequence {seqs[nob[0]] if nob[0] < len(seqs) else '?'} ({legend})",
              next_test="count loss.backward() and optimizer.step() calls per iteration of the loop (they should match, or backward should be more frequent with accumulation)",
              fix="call loss.backward() before each optimizer.step(), or step only after the accumulated backward passes",
              measurements={"steps": nob[:20]}, step=nob[0], phase="optimizer")
    if d.get("scheduler_before_step"):
        b.add("scheduler-step-before-optimizer-step", "training-loop", "warning",
              "the LR scheduler stepped before the first optimizer.step(): the first value of the schedule is skipped",
              observation=f"scheduler.step() was called before any optimizer.step(); first step's sequence: {seqs[0] if seqs else '?'} ({legend})",
              next_test="print(scheduler.get_last_lr()) before the first optimizer.step(): it is already the second value of the schedule",
              fix="call scheduler.step() after optimizer.step() (per step or per epoch, as the schedule intends)",
              step=0, phase="optimizer")


def _lr(b: _Builder, d: dict) -> None:
    lrs = d.get("lr", [])
    if len(lrs) < 2:
        return
    for g in range(len(lrs[0])):
        traj = [row[g] for row in lrs if g < len(row) and isinstance(row[g], (int, float))]
        if len(traj) < 2:
            continue
        peak, last = max(traj), traj[-1]
        if peak > 0 and last <= T.LR_COLLAPSE_FACTOR * peak:
            at = next(i for i, v in enumerate(traj) if v <= T.LR_COLLAPSE_FACTOR * peak)
            b.add("lr-collapse", "hyperparameter", "warning",
                  "the learning rate collapsed towards 0 within the traced steps: the schedule stops training long before it should end",
                  observation=f"param group {g}: LR went from {fmt(traj[0])} (peak {fmt(peak)}) to {fmt(last)} after {len(traj)} steps; "
                              f"it fell below {fmt(T.LR_COLLAPSE_FACTOR)} x peak at step {at}",
                  next_test="print(scheduler.get_last_lr()) each step for one epoch; check step_size/gamma/T_max against the number of scheduler.step() calls (per batch vs per epoch)",
                  fix="step the scheduler as often as its parameters assume (often once per epoch), or recompute step_size / T_max in steps",
                  measurements={"param_group": g, "lr": traj[:50]}, step=at, phase="optimizer")


# -- gradients and updates ------------------------------------------------------------
def _gradients(b: _Builder, d: dict, params: list[dict], steps: int) -> None:
    if not params or steps == 0:
        return
    all_pm = [(p["name"] or "?", p["module"] or "") for p in params]
    live = [p for p in params if p["requires_grad"]]

    def report(rule, category, severity, flagged, message, obs_fn, next_test, fix):
        for module, names in group_by_module([(p["name"] or "?", p["module"] or "") for p in flagged], all_pm)[:10]:
            b.add(rule, category, severity, message.format(module=module or "the whole model"),
                  observation=obs_fn(module, names), next_test=next_test, fix=fix,
                  measurements={"parameters": names[:50], "steps": steps},
                  module=module if module else "(model)", parameter=names[0] if len(names) == 1 else None, phase="backward")

    if d.get("misplaced_zero_grad"):
        return  # gradients are wiped before each step: the per-parameter gradient checks would only echo that
    none = [p for p in live if p["grad_none_steps"] == p["steps_seen"]]
    report("param-no-grad", "architecture", "warning", none,
           "parameters of {module} are in the optimizer but never receive a gradient: they are disconnected from the loss (detached, unused, or behind a non-differentiable op)",
           lambda m, n: f"{len(n)} parameter(s) ({', '.join(n[:4])}{'...' if len(n) > 4 else ''}) had .grad None at every one of {steps} optimizer step(s)",
           "loss.backward(); print([n for n, p in model.named_parameters() if p.grad is None]); then look for .detach(), .item(), torch.no_grad() or .data on the path from this module to the loss",
           "remove the detach/no_grad on the path, or drop the module from the model/optimizer if it is intentionally unused")
    zero = [p for p in live if p["grad_none_steps"] < p["steps_seen"] and p["grad_zero_steps"] + p["grad_none_steps"] == p["steps_seen"]]
    report("grad-all-zero", "architecture", "warning", zero,
           "parameters of {module} receive gradients that are exactly zero on every step: something upstream blocks the signal (dead activations, a zero multiplier, a constant output)",
           lambda m, n: f"{len(n)} parameter(s) ({', '.join(n[:4])}{'...' if len(n) > 4 else ''}) had an all-zero gradient at every one of {steps} step(s)",
           "register a hook on the module's output (out.register_hook(print)) and check whether the incoming gradient is zero or the module's own activations are",
           "fix what zeroes the signal: dead ReLUs (lower LR, LeakyReLU), an all-zero mask, or a weight initialised to exactly zero feeding it")
    frozen_lr = [p for p in live if not p.get("changed") and p["grad_zero_steps"] + p["grad_none_steps"] < p["steps_seen"]]
    report("param-not-updated", "training-loop", "warning", frozen_lr,
           "parameters of {module} have non-zero gradients but their values never changed: the optimizer does not update them (learning rate 0 for their group?)",
           lambda m, n: f"{len(n)} parameter(s) ({', '.join(n[:4])}) were bit-identical before and after each of {steps} optimizer step(s) despite non-zero gradients",
           "print(optimizer.param_groups) and check lr for the group holding these parameters; compare p.clone() before and after optimizer.step()",
           "give the group a non-zero learning rate, or make sure the optimizer holds these very tensors (not copies)")
    # update-to-parameter ratio on weight matrices
    for p in live:
        r = p.get("update_ratio_median")
        if r is None or len(p["shape"]) < 2 or p["param_norm0"] == 0 or not p.get("changed") and r == 0:
            continue
        if p["grad_zero_steps"] + p["grad_none_steps"] == p["steps_seen"]:
            continue
        if r < T.UPDATE_RATIO_LOW or r > T.UPDATE_RATIO_HIGH:
            low = r < T.UPDATE_RATIO_LOW
            b.add("update-ratio-too-small" if low else "update-ratio-too-large", "hyperparameter", "warning",
                  (f"updates of {p['name']} are tiny relative to the weights: the learning rate is probably far too small for this layer"
                   if low else f"each update changes {p['name']} by a large fraction of its size: the learning rate is probably too large"),
                  observation=f"median ||dW||/||W|| per step = {fmt(r)} over {p['steps_seen']} step(s) (healthy is around {fmt(T.UPDATE_RATIO_HEALTHY)}; "
                              f"flagged {'below' if low else 'above'} {fmt(T.UPDATE_RATIO_LOW if low else T.UPDATE_RATIO_HIGH)}); ||W|| at start {fmt(p['param_norm0'])}",
                  next_test="run a short learning-rate range test (mlsleuth diagnose FILE:FUNCTION --lr-range) or retry with the LR scaled by 10x towards the healthy ratio and compare the loss after the same number of steps",
                  fix=("raise the learning rate (by about the factor separating the ratio from 1e-3)" if low
                       else "lower the learning rate, add warmup, or clip gradients"),
                  measurements={"update_ratio_median": r, "update_ratios": p["update_ratios"][:20]},
                  module=p["module"] or "(model)", parameter=p["name"], phase="optimizer")
    # vanishing gradients: first vs last weight layer
    weights = [p for p in live if len(p["shape"]) >= 2 and p["grad_norm_median"] is not None and p["numel"] > 0]
    if len(weights) >= 3:
        first, last = weights[0], weights[-1]
        rms = lambda p: p["grad_norm_median"] / math.sqrt(p["numel"])
        if rms(last) > 0 and rms(first) / rms(last) < T.VANISHING_GRAD_RATIO and first["grad_norm_median"] > 0:
            b.add("vanishing-gradients", "architecture", "warning",
                  f"gradients shrink on the way back: the first layer ({first['name']}) gets a gradient far smaller than the last ({last['name']})",
                  observation=f"median gradient RMS {fmt(rms(first))} at {first['name']} vs {fmt(rms(last))} at {last['name']} "
                              f"(ratio {fmt(rms(first) / rms(last))}, flagged below {fmt(T.VANISHING_GRAD_RATIO)})",
                  next_test="print the gradient norm of every layer after one backward (for n, p in model.named_parameters(): print(n, p.grad.norm())) and see where it drops",
                  fix="use ReLU/GELU instead of saturating activations, add normalisation or residual connections, use Kaiming/Xavier init",
                  measurements={"grad_rms": {p["name"]: rms(p) for p in weights[:50]}},
                  module=first["module"] or "(model)", parameter=first["name"], phase="backward")


def _activations(b: _Builder, d: dict) -> None:
    for name, rec in sorted(d.get("activations", {}).items()):
        if rec.get("kind") == "relu" and rec.get("dead_fraction", 0) >= T.DEAD_RELU_FRACTION:
            b.add("dead-relu", "architecture", "warning",
                  f"most units of ReLU '{name}' are dead: they output 0 for every sample, so they pass no gradient and cannot recover",
                  observation=f"{fmt(100 * rec['dead_fraction'])}% of {rec.get('units')} unit positions were 0 on every sample of all {rec['forwards']} traced training batches "
                              f"(flagged at {int(100 * T.DEAD_RELU_FRACTION)}%)",
                  next_test=f"print((act > 0).float().mean(0)) for the input of '{name}' on one batch; inspect the preceding layer's bias and weight scale",
                  fix="lower the learning rate, initialise biases at 0 with Kaiming init, or use LeakyReLU/GELU",
                  measurements={"dead_fraction": rec["dead_fraction"], "units": rec.get("units"), "batches": rec["forwards"]},
                  module=name, phase="forward")
        elif rec.get("kind") in ("tanh", "sigmoid") and rec.get("saturated_fraction", 0) >= T.SATURATED_FRACTION:
            b.add("activation-saturation", "architecture", "warning",
                  f"{rec['type']} '{name}' is saturated: most outputs sit at the flat ends where the derivative is nearly 0",
                  observation=f"{fmt(100 * rec['saturated_fraction'])}% of outputs were saturated on average over {rec['forwards']} traced batches "
                              f"(|tanh| > 0.99 or sigmoid outside [0.01, 0.99]; flagged at {int(100 * T.SATURATED_FRACTION)}%)",
                  next_test=f"histogram the pre-activation input of '{name}': values beyond about +-3 mean saturation; check input scaling and the preceding layer's init",
                  fix="normalise inputs, use a smaller init scale or a normalisation layer before the activation, or switch to ReLU/GELU",
                  measurements={"saturated_fraction": rec["saturated_fraction"]}, module=name, phase="forward")


# -- loss ----------------------------------------------------------------------------
def _loss(b: _Builder, d: dict) -> None:
    calls = d.get("loss_calls", {})
    ce = calls.get("cross_entropy")
    if ce and ce.get("probability_inputs") and ce["probability_inputs"] >= min(ce["calls"], 20):
        b.add("softmax-into-cross-entropy", "loss", "error",
              "cross_entropy receives probabilities (softmax outputs), not logits: it applies log-softmax again, which flattens gradients and caps how confident the model can get",
              observation=f"on all {min(ce['calls'], 20)} inspected calls every row of the {ce.get('input_shape')} input was non-negative and summed to 1",
              next_test="print(outputs.sum(dim=1)[:5]) right before the loss: all ones means a softmax ran already",
              fix="remove the softmax from the model's forward (or use it only at inference); cross_entropy expects raw logits",
              measurements={"calls_inspected": min(ce["calls"], 20), "input_shape": ce.get("input_shape")},
              module=(ce.get("softmax_modules") or [None])[0] or "(model output)", step=ce.get("step"), phase="loss")
    nll = calls.get("nll_loss")
    if nll and nll.get("non_log_prob_inputs") and nll["non_log_prob_inputs"] >= min(nll["calls"], 20):
        b.add("nll-loss-on-logits", "loss", "error",
              "nll_loss receives inputs that are not log-probabilities (raw logits or probabilities): it needs log_softmax first",
              observation=f"logsumexp over classes was up to {fmt(nll.get('max_abs_logsumexp'))} away from 0 on every inspected call (log-probabilities give exactly 0)",
              next_test="print(torch.logsumexp(outputs, dim=1)[:5]) before the loss: log-probabilities give 0",
              fix="apply F.log_softmax(logits, dim=1) before nll_loss, or use cross_entropy on the logits",
              module="(model output)", step=nll.get("step"), phase="loss")
    bce = calls.get("binary_cross_entropy_with_logits")
    if bce and bce.get("probability_inputs") and bce["probability_inputs"] >= min(bce["calls"], 20):
        b.add("sigmoid-into-bce-with-logits", "loss", "warning",
              "binary_cross_entropy_with_logits receives values that all lie in [0, 1], as if a sigmoid already ran: the sigmoid is applied twice",
              observation=f"every element of the {bce.get('input_shape')} input was in [0, 1] on all inspected calls",
              next_test="look for torch.sigmoid / nn.Sigmoid at the end of the model; print(outputs.min(), outputs.max()) before the loss",
              fix="drop the sigmoid from the model when using BCEWithLogitsLoss (apply it only for predictions)",
              module="(model output)", step=bce.get("step"), phase="loss")
    for fname, rec in calls.items():
        bc = rec.get("broadcast")
        if bc:
            shapes = f"input {tuple(bc['input_shape'])} against target {tuple(bc['target_shape'])}"
            b.add("loss-target-broadcast", "loss", "error",
                  f"{fname} broadcasts its {shapes} to {tuple(bc['broadcast_shape'])}: every prediction is compared with every target, so the model can only learn the batch mean",
                  observation=f"first seen at step {bc.get('step')}{' during evaluation' if not bc.get('grad_enabled') else ''}: {shapes} -> {tuple(bc['broadcast_shape'])}",
                  next_test="print(outputs.shape, targets.shape) right before the loss call",
                  fix="make the shapes equal: outputs.squeeze(-1), or targets.view_as(outputs)",
                  measurements=bc, step=bc.get("step"), phase="loss", module=bc.get("where"))
        if rec.get("out_of_range"):
            classes = rec.get("classes")
            if fname in ("cross_entropy", "nll_loss"):
                seen = f"labels ranged {rec.get('target_min')}..{rec.get('target_max')} but the input has {classes} classes (valid labels 0..{classes - 1 if classes else '?'})"
            else:
                seen = f"targets ranged {fmt(rec.get('target_min'))}..{fmt(rec.get('target_max'))}; binary cross-entropy needs targets in [0, 1]"
            b.add("label-out-of-range", "data", "error",
                  "labels fall outside the range the loss accepts: the model's output size and the label encoding disagree",
                  observation=f"{LOSS_LABEL.get(fname, fname)}: {seen} (first at step {rec.get('out_of_range_step')})",
                  next_test="print(targets.min(), targets.max(), outputs.shape) for one batch; compare with the number of classes in the dataset",
                  fix="set the final layer's output size to the number of classes, and map labels to 0..C-1 (e.g. subtract 1 from 1-based labels)",
                  measurements={"target_min": rec.get("target_min"), "target_max": rec.get("target_max"), "classes": classes},
                  module=_mod(rec.get("out_of_range_where")) or "(loss input)", step=rec.get("out_of_range_step"), phase="loss")
    # initial loss against the uniform-prediction expectation
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
            b.add("initial-loss-high", "loss", "warning",
                  "the loss at initialisation is far above what near-uniform predictions give: the output layer starts over-confident (bad init scale, unnormalised inputs, or a loss/label mismatch)",
                  observation=f"first {LOSS_LABEL.get(fname, fname)} value {fmt(value)} vs ln({classes}) = {fmt(expected)} expected for uniform predictions "
                              f"(flagged above {T.INITIAL_LOSS_FACTOR:g}x and {T.INITIAL_LOSS_MARGIN_NATS:g} nat over)",
                  next_test="print(outputs.std(), outputs.abs().max()) for the first batch: logits should be O(1); re-run with the last layer's weights scaled by 0.01",
                  fix="normalise the inputs, use the default (Kaiming/Xavier) init, or initialise the final layer small",
                  measurements={"initial_loss": value, "expected": expected, "classes": classes},
                  module="(loss)", step=rec.get("first_value_step", 0), phase="loss")
        break
    # loss trend and non-finite
    nf = d.get("non_finite_loss")
    if nf:
        b.add("non-finite-loss", "numerical", "error",
              "the loss became non-finite; the run was stopped there because every later update is corrupted",
              observation=f"loss = {nf['value']} at step {nf['step']}",
              next_test=f"mlsleuth nan {b.path or 'SCRIPT'} (localises the step, module and op where the first NaN/Inf appears)",
              fix="fix the op that produces it (log of 0, division by ~0, exp overflow, too-high LR), do not mask it with nan_to_num",
              measurements=nf, module="(loss)", step=nf["step"], phase="loss")
    _label_prior(b, d, nf)
    losses = [v for v in d.get("losses", []) if isinstance(v, (int, float)) and math.isfinite(v)]
    if not nf and len(losses) >= T.MIN_STEPS_FOR_TREND:
        k = len(losses) // 3
        head, tail = sum(losses[:k]) / k, sum(losses[-k:]) / k
        if tail >= head:
            b.add("loss-not-decreasing", "training-loop", "warning",
                  "the training loss did not go down over the traced steps: learning is blocked (LR far too small, frozen or disconnected weights, labels unrelated to inputs, broken loss)",
                  observation=f"mean loss over the first {k} steps {fmt(head)}, over the last {k} steps {fmt(tail)} ({len(losses)} steps traced)",
                  next_test="run the overfit-one-batch test (mlsleuth diagnose FILE:FUNCTION): a healthy model drives one fixed batch's loss near 0 in a few hundred steps",
                  fix="act on the other findings of this report first; if none, check labels against inputs and try a 10x larger learning rate",
                  measurements={"losses": losses[:100], "first_mean": head, "last_mean": tail},
                  module="(loss)", step=len(losses) - 1, phase="loss")


# -- data ----------------------------------------------------------------------------
def _data(b: _Builder, d: dict) -> None:
    st = d.get("input_stats")
    root = d.get("input_module")
    if st and not st.get("integer"):
        if st.get("nan") or st.get("inf"):
            b.add("input-non-finite", "data", "error",
                  "the input batch contains NaN or Inf: it poisons every gradient it touches",
                  observation=f"first training batch {st['shape']}: {st['nan']} NaN and {st['inf']} Inf value(s)",
                  next_test="torch.isfinite(x).all() over the dataset; find which samples/features hold the NaN (missing values, division by a zero std)",
                  fix="clean or impute the data; compute normalisation statistics with nan-aware functions",
                  measurements=st, module=root, step=0, phase="data")
        elif "max" in st:
            raw = st.get("integral") and st["min"] >= 0 and T.RAW_PIXEL_MIN_MAX <= st["max"] <= T.RAW_PIXEL_MAX
            large = abs(st.get("mean", 0)) > T.INPUT_SCALE_LIMIT or st.get("std", 0) > T.INPUT_SCALE_LIMIT
            if raw or large:
                what = ("integer values in 0..255, i.e. raw pixels/counts" if raw else
                        f"mean {fmt(st.get('mean'))}, std {fmt(st.get('std'))} (more than {T.INPUT_SCALE_LIMIT:g}x unit scale)")
                b.add("input-unnormalized", "data", "warning",
                      "the model is fed unnormalised inputs: layers initialised for unit-scale inputs start saturated or over-confident",
                      observation=f"first training batch {st['shape']} ({st['dtype']}): min {fmt(st['min'])}, max {fmt(st['max'])}, {what}",
                      next_test="print(x.min(), x.max(), x.mean(), x.std()) on one batch; compare the loss after a few steps with x / 255 (or standardised) inputs",
                      fix="scale to [0, 1] (e.g. transforms.ToTensor or x / 255.) and standardise with the training set's mean and std",
                      measurements=st, module=root, step=0, phase="data")
            if st.get("constant_features"):
                b.add("constant-input-features", "data", "info",
                      "some input features are constant across the batch: they carry no information (a broken column or a normalisation by zero std?)",
                      observation=f"{st['constant_features']} of {st.get('features')} features had zero variance in the first training batch of {st['shape'][0]} samples",
                      next_test="compute the per-feature std over the whole training set; list the zero-variance columns",
                      fix="drop the constant features or fix the pipeline step that flattens them",
                      measurements={"constant_features": st["constant_features"], "features": st.get("features")}, module=root, step=0, phase="data")
    counts = {int(k): v for k, v in d.get("class_counts", {}).items()}
    total = sum(counts.values())
    ce = d.get("loss_calls", {}).get("cross_entropy") or d.get("loss_calls", {}).get("nll_loss")
    if total and ce:
        top_class, top = max(counts.items(), key=lambda kv: kv[1])
        if len(counts) >= 1 and top / total >= T.MAJORITY_CLASS_SHARE and (ce.get("classes") or 0) >= 2:
            b.add("class-imbalance", "data", "info",
                  "the labels seen are dominated by one class: accuracy is misleading and the model may learn to predict only that class",
                  observation=f"class {top_class} held {top} of {total} labels ({fmt(100 * top / total)}%) over the traced training batches",
                  next_test="compute the class histogram over the full training set and a majority-class baseline's accuracy",
                  fix="use class weights, a balanced sampler, or metrics such as per-class recall/F1",
                  measurements={"class_counts": counts}, module="(loss)", phase="data")
        classes = ce.get("classes") or 0
        if classes >= 2 and total >= T.LABELS_PER_CLASS * classes and len(counts) < classes / 2 and not ce.get("out_of_range"):
            b.add("output-size-mismatch", "data", "warning",
                  f"the model outputs {classes} classes but the labels use only {len(counts)} of them: the output size and the dataset's number of classes probably disagree",
                  observation=f"{total} labels over the traced steps took {len(counts)} distinct values ({sorted(counts)[:10]}), output has {classes} logits",
                  next_test="print(len(dataset.classes)) (or the label set) and compare with the final layer's out_features",
                  fix="set the final layer's output size to the real number of classes",
                  measurements={"classes_in_output": classes, "distinct_labels": len(counts), "labels_seen": total},
                  module="(output layer)", phase="loss")


# -- evaluation --------------------------------------------------------------------------
def _evaluation(b: _Builder, d: dict) -> None:
    for rec in d.get("eval_train_mode", [])[:1]:
        mods = rec["modules"]
        names = ", ".join(f"{m['module']} ({m['type']})" for m in mods[:5])
        b.add("eval-in-train-mode", "evaluation", "warning",
              "a no-grad (evaluation) pass ran with the model in training mode: dropout stays active and batch-norm uses and updates batch statistics",
              observation=f"{rec['root']} had training=True during a torch.no_grad() forward at step {rec['step']}; {rec['count']} mode-dependent layer(s): {names}",
              next_test="call model.eval() before the evaluation loop and compare the metric; running the same batch twice in this mode gives different outputs",
              fix="model.eval() before evaluating and model.train() before resuming training",
              measurements=rec, module=mods[0]["module"], step=rec["step"], phase="evaluation")
    fd = d.get("functional_dropout")
    if fd:
        ctx = "a module in eval mode" if fd.get("module_training") is False else "a no-grad pass"
        b.add("functional-dropout-in-eval", "evaluation", "error",
              "functional dropout is active during evaluation: F.dropout defaults to training=True and ignores model.eval()",
              observation=f"F.{fd['function']}(p={fd['p']}, training=True) ran {fd['calls']} time(s) inside {ctx} (module '{fd.get('module')}', step {fd['step']})",
              next_test="run the model twice on the same batch after model.eval(): outputs differ",
              fix="use nn.Dropout as a submodule, or pass training=self.training to F.dropout",
              measurements=fd, module=fd.get("module") or "(model)", step=fd["step"], phase="evaluation")
    det = d.get("eval_determinism")
    if det and not det.get("identical"):
        b.add("eval-nondeterministic", "evaluation", "warning",
              "two evaluation passes over the same batch gave different outputs: something random or stateful is active in eval mode",
              observation=f"{det['root']} in eval mode under no_grad: max |difference| {fmt(det['max_abs_diff'])} between two forwards of the same batch (step {det['step']})",
              next_test="with model.eval(), run torch.manual_seed(0); a = model(x); b = model(x) and bisect which submodule's output differs",
              fix="route randomness through modules that respect .eval() (nn.Dropout), and do not update state (caches, counters) in eval forwards",
              measurements=det, module=det.get("functional_dropout") or det["root"], step=det["step"], phase="evaluation")


def _optimizer(b: _Builder, d: dict, steps: int) -> None:
    opt = d.get("optimizer") or {}
    replaced = opt.get("replacement_count", 0)
    if steps >= T.REBUILT_OPTIMIZER_MIN_STEPS and opt.get("stateful") and replaced >= T.REBUILT_OPTIMIZER_FRACTION * (steps - 1):
        first = (opt.get("replacements") or [None])[0]
        b.add("optimizer-rebuilt-each-step", "training-loop", "error",
              f"a new {opt.get('type') or 'optimizer'} is built for (nearly) every step: its momentum / moment estimates are thrown away each time, so it never runs as configured",
              observation=f"over {steps} traced steps a different optimizer object took over the same parameters {replaced} time(s) (first at step {first}); "
                          f"the {opt.get('type')} keeps per-parameter state that each rebuild discards",
              next_test="print(id(optimizer)) inside the training loop: a new value every iteration confirms it",
              fix="construct the optimizer (and its scheduler) once before the training loop",
              measurements={"steps": steps, "replacements": replaced, "optimizer": opt.get("type")},
              step=first, phase="optimizer")


def _structure(b: _Builder, d: dict) -> None:
    bd = d.get("batch_dependence")
    if bd and not bd.get("skipped") and bd.get("leak", 0) > 0:
        after, before = bd.get("mixing_after"), bd.get("mixing_before")
        where = (f"between the output of '{after}' and the output of '{before}'" if after and before else
                 f"after '{after}'" if after else f"before '{before}'" if before else "somewhere in the forward")
        b.add("batch-mixing", "architecture", "error",
              f"samples mix across the batch {where}: output {bd['sample']} depends on other samples' inputs (a reshape/view/transpose over the batch dimension?)",
              observation=f"in eval mode, d output[{bd['sample']}] / d input[j] reached {fmt(bd['leak'])} for j != {bd['sample']} (own sample: {fmt(bd['self'])}); "
                          f"it must be exactly 0 when samples are independent (batch of {bd['batch']})",
              next_test="x = batch.clone().requires_grad_(); model.eval(); model(x)[0].sum().backward(); print(x.grad.flatten(1).abs().sum(1)): only row 0 may be non-zero",
              fix="use x.flatten(1) / x.reshape(x.size(0), -1) and permute (not view) when reordering dimensions; keep the batch dimension first",
              measurements=bd, module=before or after or bd.get("root"), step=0, phase="forward")
    frozen = d.get("frozen", [])
    if frozen:
        groups: dict[str, list[str]] = {}
        for p in frozen:
            groups.setdefault(p["module"] or "(model)", []).append(p["name"])
        for module, names in sorted(groups.items())[:10]:
            b.add("frozen-parameters", "training-loop", "info",
                  f"parameters of '{module}' have requires_grad=False and are never trained (intended when fine-tuning; a bug otherwise)",
                  observation=f"{len(names)} frozen parameter(s): {', '.join(names[:4])}",
                  next_test="print([n for n, p in model.named_parameters() if not p.requires_grad]) and confirm each is meant to be frozen",
                  fix="set requires_grad=True on layers you mean to train",
                  measurements={"parameters": names[:50]}, module=module, phase="setup")
    missing = d.get("not_in_optimizer", [])
    if missing:
        flagged = [(p["name"], p["module"]) for p in missing]
        universe = [tuple(pm) for pm in d.get("model_params", [])] or flagged
        for module, names in group_by_module(flagged, universe)[:10]:
            b.add("param-not-in-optimizer", "training-loop", "error",
                  f"trainable parameters of '{module or '(model)'}' are not in any optimizer: they get gradients but never change",
                  observation=f"{len(names)} parameter(s) with requires_grad=True are missing from every optimizer's param_groups: {', '.join(names[:4])}",
                  next_test="compare {id(p) for g in optimizer.param_groups for p in g['params']} with {id(p) for p in model.parameters()}",
                  fix="build the optimizer from model.parameters() after the model is complete (a layer created or replaced later is not included)",
                  measurements={"parameters": names[:50]}, module=module or "(model)", phase="setup")
    for s in d.get("symmetric", [])[:10]:
        b.add("symmetric-weights", "architecture", "warning",
              f"all {s['rows']} output units of '{s['module']}' still have identical weights after training steps: symmetry was never broken, so the layer acts as one unit",
              observation=f"{s['name']}: every row equal to the first {_zero_note(s)} after the traced steps",
              next_test=f"print({s['name']}.std(dim=0)) at init: zeros mean a constant initialisation",
              fix="use the default random init (nn.init.kaiming_uniform_ / xavier) for hidden layers; zero init is only safe for a final layer or biases",
              measurements=s, module=s["module"], parameter=s["name"], phase="setup")


def _zero_note(s: dict) -> str:
    return "(all exactly 0)" if s["all_zero"] else f"(max |w| {fmt(s['max_abs'])})"


def _label_prior(b: _Builder, d: dict, non_finite: Any) -> None:
    """Cross-entropy that stays at the entropy of the label distribution: nothing learned from the inputs."""
    ce = d.get("loss_calls", {}).get("cross_entropy")
    counts = [v for v in d.get("class_counts", {}).values() if v]
    if non_finite or not ce or ce.get("soft_targets") or ce.get("reduction", "mean") != "mean" or ce.get("out_of_range"):
        return
    values = [v for v in ce.get("values", []) if isinstance(v, (int, float)) and math.isfinite(v)]
    total = sum(counts)
    if len(values) < T.MIN_STEPS_FOR_TREND or len(counts) < 2 or total == 0:
        return
    prior = -sum(c / total * math.log(c / total) for c in counts)
    k = len(values) // 3
    tail = sum(values[-k:]) / k
    if tail >= (1 - T.LABEL_PRIOR_MARGIN) * prior:
        b.add("loss-at-label-prior", "data", "warning",
              "the loss is no better than predicting the label frequencies: the model has learned nothing from its inputs "
              "(labels misaligned with inputs, inputs that carry no signal, or learning blocked)",
              observation=f"mean cross-entropy over the last {k} of {len(values)} steps {fmt(tail)} vs {fmt(prior)}, the entropy of the "
                          f"{total} labels seen (what predicting class frequencies alone scores); flagged unless at least "
                          f"{int(100 * T.LABEL_PRIOR_MARGIN)}% below",
              next_test="train on one fixed batch (mlsleuth diagnose FILE:FUNCTION overfits one batch and compares real, shuffled and random inputs); "
                        "also print a few (input, label) pairs after the data pipeline to check they still belong together",
              fix="keep inputs and labels aligned through every shuffle/augmentation/sort; check the label source",
              measurements={"label_entropy": prior, "loss_tail_mean": tail, "losses": values[:100]},
              module="(loss)", step=len(values) - 1, phase="loss")

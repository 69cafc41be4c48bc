"""Every ``diagnose`` check: one decorated function each, turning the battery's measurements into findings.

The child (:mod:`mlsleuth.runtime.child.diagnose_checks` and ``diagnose_main``)
runs the battery and measures; each function here reads those measurements
(:class:`DiagnoseRun`) and yields what it found, with the thresholds of
:mod:`mlsleuth.runtime.thresholds`. The trace checks also run on the
diagnose child's trace measurements (see :mod:`mlsleuth.runtime.diagnose.run`).
Import-light: no torch here.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from mlsleuth.runtime import thresholds as T
from mlsleuth.runtime.common import decode_non_finite, fmt
from mlsleuth.runtime.registry import Found, runtime_check


class DiagnoseRun:
    """What the diagnose battery measured (``payload["checks"]``), the trace measurements beside it, and where."""

    def __init__(self, checks: dict[str, Any], trace: dict[str, Any], *, path: str | None, function: str) -> None:
        self.checks = decode_non_finite(checks)  # the child writes NaN/Inf as strings
        self.trace = decode_non_finite(trace)
        self.path = path
        self.function = function

    def location_defaults(self) -> dict[str, Any]:
        return {"path": self.path, "function": self.function}


def target_text(ov: dict[str, Any]) -> str:
    """What the loss had to reach, and why that number."""
    if ov.get("chance") and ov.get("target") is not None:
        return (f"target was {fmt(ov['target'])}, {int(100 * T.OVERFIT_CHANCE_FRACTION)}% of the chance-level loss {fmt(ov['chance'])} "
                f"(the loss of predicting only the batch's label frequencies or mean target)")
    return f"target was {int(100 * T.OVERFIT_TARGET_FRACTION)}% of the initial loss (no chance level could be computed for this loss)"


@runtime_check("overfit-one-batch", tool="diagnose", category="training-loop", severity="error")
def overfit_one_batch(run: DiagnoseRun) -> Iterator[Found]:
    """Overfit one batch.

    What it finds: trains the user's model with the user's optimizer on one fixed batch, seeded (the same initial
    weights and verdict on every run), until the loss falls below {pct.OVERFIT_CHANCE_FRACTION}% of the chance-level
    loss (the user's loss when every sample gets the batch's label frequencies, or the mean target) or, when no chance
    level can be computed, below {pct.OVERFIT_TARGET_FRACTION}% of the initial loss; or until every sample of the batch
    is classified right with the loss below {pct.OVERFIT_ACCURACY_FRACTION}% of that reference, within the step budget.
    Success is recorded in the report's summary stats (steps needed, loss curve); failure is an error naming what is
    implicated: loss wiring (the loss does not depend on the output, or receives probabilities/logits of the wrong kind), gradient
    flow (a quarter or more of the trainable tensors get no or zero gradient), numerics (non-finite loss), or else
    capacity or learning rate.
    Why it matters: a correct model, loss and optimizer can always memorise one small batch; if they cannot,
    no amount of data or training time will help and the bug is in the wiring, not in the hyperparameters.
    How to confirm: the measurements hold the loss curve; repeat with --lr-range to rule out the learning rate.
    What to do instead: fix the implicated part first, then scale to a few batches and the full loop.
    """
    ov, trace = run.checks.get("overfit") or {}, run.trace
    losses = ov.get("losses") or []
    if not losses:
        return
    initial, final = ov.get("initial", losses[0]), losses[-1]
    curve = [round(v, 5) for v in losses[:: max(1, len(losses) // 20)]]
    if ov.get("reached_at") is not None:
        return  # passing is not a finding: the curve and step count go to summary.stats
    # which part is implicated?
    params = trace.get("params", [])
    live = [p for p in params if p.get("requires_grad")]
    no_grad = [p["name"] for p in live if p["grad_none_steps"] == p["steps_seen"] or p["grad_zero_steps"] + p["grad_none_steps"] == p["steps_seen"]]
    loss_issue = [r for r, key in (("softmax-into-cross-entropy", "cross_entropy"), ("nll-loss-on-logits", "nll_loss"),
                                   ("sigmoid-into-bce-with-logits", "binary_cross_entropy_with_logits"))
                  if (trace.get("loss_calls", {}).get(key) or {}).get("probability_inputs") or (trace.get("loss_calls", {}).get(key) or {}).get("non_log_prob_inputs")]
    if ov.get("no_graph") or ov.get("loss_grad_wrt_output") == 0.0:
        implicated = "loss wiring"
        why = "the loss does not depend on the model's output (no graph, or a zero gradient with respect to the output)"
    elif loss_issue:
        implicated = "loss wiring"
        why = f"the loss receives the wrong kind of input ({', '.join(loss_issue)})"
    elif live and no_grad and len(no_grad) >= max(1, len(live) // 4):
        implicated = "gradient flow"
        why = f"{len(no_grad)} of {len(live)} trainable tensors got no or all-zero gradients (e.g. {', '.join(no_grad[:3])})"
    elif ov.get("non_finite_at") is not None:
        implicated = "numerics"
        why = f"the loss became non-finite at step {ov['non_finite_at']}"
    else:
        drop = (initial - min(losses)) / initial if initial else 0.0
        implicated = "capacity or learning rate"
        why = (f"gradients reach the parameters and the loss is wired, yet the best loss fell only {fmt(100 * drop)}%: "
               "the model is too small/constrained for this batch, or the learning rate is far off")
    yield Found(
        f"the model cannot overfit a single batch; implicated: {implicated} - {why}",
        observation=f"loss {fmt(initial)} -> {fmt(final)} (best {fmt(min(losses))}) after {len(losses)} step(s) on one fixed batch with "
                    f"{ov.get('optimizer')} lr {ov.get('lr')}; {target_text(ov)}"
                    + (f"; accuracy on the batch {fmt(ov['accuracy'])}" if ov.get("accuracy") is not None else ""),
        next_test={"loss wiring": "print(torch.autograd.grad(loss, outputs)[0].abs().max()) and the loss's input range; compare with a known-good loss call",
                   "gradient flow": "after loss.backward(), list parameters whose .grad is None or zero; look for detach/no_grad/.item() on the path",
                   "numerics": "mlsleuth nan FILE:FUNCTION localises the first non-finite value",
                   "capacity or learning rate": "re-run with --lr-range to pick a learning rate, then with a wider model; one of them should overfit"}[implicated],
        measurements={"implicated": implicated, "initial": initial, "final": final, "best": min(losses), "curve": curve,
                      "chance_level_loss": ov.get("chance"), "target": ov.get("target"), "seed": ov.get("seed"),
                      "steps": len(losses), "params_without_grad": no_grad[:20]},
        step=len(losses) - 1, phase="optimizer")


@runtime_check("causal-leakage", tool="diagnose", category="architecture", severity="error")
def causal_leakage(run: DiagnoseRun) -> Iterator[Found]:
    """The model sees the future.

    What it finds: for sequence models (task 'sequence' or a time_dim hint), the gradient of the output at the middle
    time step with respect to inputs at later time steps (through the embedding output for token inputs), in eval
    mode; it must be exactly zero for an autoregressive/causal model. Module outputs are read the same way to name
    the last module that lets later positions into earlier ones. `trace` (and so `check`) runs it on the traced
    script's first batch when the loss targets are the inputs shifted by one position (next-token prediction).
    Why it matters: a missing causal mask or a shifting mistake lets the model copy the answer during training; the
    training loss looks excellent and generation is garbage.
    How to confirm: change only the last input step and check whether earlier outputs move.
    What to do instead: apply a causal attention mask (is_causal=True or a square subsequent mask) and shift targets by one.
    """
    c = run.checks.get("causal")
    if not c or c.get("skipped") or c.get("future_grad", 0) <= 0:
        return
    yield Found(
        "the output at time t depends on inputs after t: the model can see the future (a missing or wrong causal mask, a bidirectional layer, or a shift error)",
        observation=f"d output[t={c['t']}] / d {c['via']}[t'] reached {fmt(c['future_grad'])} for t' > t (first at t'={c['first_leaking_step']}; "
                    f"past/present max {fmt(c['past_grad'])}) over {c['time_steps']} steps; it must be exactly 0 for a causal model"
                    + (f"; the last module that lets later positions into earlier ones is '{c['leak_before']}'" if c.get("leak_before") else ""),
        next_test="perturb the input at the last time step and check whether earlier outputs change (they must not)",
        fix="pass a causal mask (e.g. nn.Transformer.generate_square_subsequent_mask / is_causal=True), and shift targets by one",
        measurements=c, module=c.get("leak_before") or "(model)", phase="forward")


@runtime_check("input-ignored", tool="diagnose", category="data", severity="warning")
def input_ignored(run: DiagnoseRun) -> Iterator[Found]:
    """The model does not use its inputs.

    What it finds: from the same initial weights and for the same number of steps on one batch, training with the real
    inputs does not end at least {pct.ABLATION_MIN_GAIN}% lower in loss than training with inputs shuffled
    against their labels (re-shuffled every step) or with random inputs of the same mean and std (re-drawn every step).
    Why it matters: with shuffled or random inputs the model can only learn the label frequencies; if real inputs do
    no better, the input path is cut (a variable overwritten, a detach, a zeroed projection, the wrong argument).
    How to confirm: feed two very different inputs and compare the outputs.
    What to do instead: follow the input through forward() and fix where its signal is lost.
    """
    a = run.checks.get("ablation")
    if not a or a.get("skipped") or a.get("real") is None:
        return
    real, shuffled, rand = a["real"], a.get("shuffled"), a.get("random")
    baselines = [v for v in (shuffled, rand) if isinstance(v, (int, float)) and math.isfinite(v)]
    if not baselines:
        return
    best_baseline = min(baselines)
    if real > (1 - T.ABLATION_MIN_GAIN) * best_baseline:
        yield Found(
            "training on the real inputs does no better than training on shuffled or random inputs: the model is not using its inputs",
            observation=f"after {a['steps']} steps on one batch from the same init: loss {fmt(real)} with real inputs, {fmt(shuffled)} with inputs shuffled "
                        f"against their labels, {fmt(rand)} with random inputs (real must be at least {int(100 * T.ABLATION_MIN_GAIN)}% lower)",
            next_test="print(model(x).std(0)) for two very different inputs: identical outputs mean the input path is cut (overwritten, detached, or zero-weighted)",
            fix="trace where the input enters the forward; check for overwritten variables, a wrong argument order, or a zeroed input projection",
            measurements=a, module="(model)", phase="forward")


@runtime_check("symmetric-init", tool="diagnose", category="architecture", severity="warning")
def symmetric_init(run: DiagnoseRun) -> Iterator[Found]:
    """Hidden layer initialised with identical (often zero) rows.

    What it finds: weight matrices, other than the model's final weight layer, whose output rows are all identical at
    initialisation (all-zero or constant init).
    Why it matters: identical units get identical gradients, so they stay identical: the layer works as a single unit.
    A zero-initialised final layer is a known-safe trick and is not flagged.
    How to confirm: print(w.std(dim=0)) right after constructing the model.
    What to do instead: keep PyTorch's default init or use Kaiming/Xavier for hidden layers.
    """
    for w in run.checks.get("weights", []):
        if w.get("last_layer"):
            continue  # zero-initialising the final layer is a known, safe trick
        yield Found(
            f"'{w['module'] or w['name']}' starts with {'all-zero' if w['all_zero'] else 'identical'} rows: its units are clones and receive identical updates",
            observation=f"{w['name']}: {w['rows']} rows identical at initialisation{' (all exactly 0)' if w['all_zero'] else ''}; this is not the model's final weight layer",
            next_test=f"print({w['name']}.std(dim=0)) right after building the model",
            fix="remove the constant/zero init of hidden layers (keep PyTorch's default or use Kaiming/Xavier)",
            measurements=w, module=w["module"] or "(model)", parameter=w["name"], phase="setup")


@runtime_check("unregistered-submodule", tool="diagnose", category="architecture", severity="error")
def unregistered_submodule(run: DiagnoseRun) -> Iterator[Found]:
    """Layers hidden in a plain list, tuple or dict.

    What it finds: module attributes that are Python lists/tuples/dicts holding nn.Module objects (or tensors with
    requires_grad) whose parameters are not among model.parameters().
    Why it matters: those layers are skipped by the optimizer, .to(device), .train()/.eval() and state_dict(): they never
    train, may stay on the CPU, and are lost when the checkpoint is reloaded.
    How to confirm: compare sum(p.numel() for p in model.parameters()) with the parameter count you expect.
    What to do instead: use nn.ModuleList, nn.ModuleDict or nn.Parameter.
    """
    for u in run.checks.get("unregistered", []):
        where = f"{u['module']}.{u['attribute']}" if u["module"] else u["attribute"]
        yield Found(
            f"'{where}' holds layers in a plain {u['container']}: nn.Module does not register them, so model.parameters(), .to(device), state_dict() and the optimizer miss them",
            observation=f"{u['unregistered_parameters']} parameter tensor(s) ({u['numel']} values) reachable through {where} are not in model.parameters()",
            next_test=f"print(sum(p.numel() for p in model.parameters())) and compare with the layers in {where}",
            fix="use nn.ModuleList / nn.ModuleDict / nn.Parameter (or register_buffer for constants)",
            measurements=u, module=where, phase="setup")


@runtime_check("lr-range-suggestion", tool="diagnose", category="hyperparameter", severity="info")
def lr_range_suggestion(run: DiagnoseRun) -> Iterator[Found]:
    """Learning-rate range test.

    What it finds: (with --lr-range) increases the learning rate exponentially from 1e-7 to 10 over 100 steps from the
    initial weights, smooths the loss with an exponential moving average and stops when it exceeds four times its
    minimum; suggests the smaller of the steepest-descent LR and a tenth of the LR at the minimum.
    Why it matters: a learning rate off by a factor of ten or more explains most "it trains but badly" runs; the test
    costs about a hundred steps.
    How to confirm: train a few hundred steps at the suggested LR and at 3x either side.
    What to do instead: use the suggestion as the peak LR of the schedule (with warmup for large models).
    """
    r = run.checks.get("lr_range")
    if not r:
        return
    if r.get("skipped"):
        yield Found("the learning-rate range test could not find a usable range",
                    observation=f"{r['skipped']} ({len(r.get('losses', []))} points)",
                    next_test="re-run with a smaller model output scale or check for NaN sources",
                    measurements=r, phase="optimizer")
        return
    yield Found(
        f"the learning-rate range test suggests a learning rate around {fmt(r['suggested_lr'])}",
        observation=f"smoothed loss fell fastest at lr {fmt(r['steepest_lr'])} and was lowest at lr {fmt(r['min_loss_lr'])} "
                    f"(exponential sweep over {len(r['lrs'])} steps from {fmt(r['lrs'][0])})",
        next_test="train a few hundred steps at the suggested LR and at 3x above/below it; keep the best",
        measurements={k: r[k] for k in ("suggested_lr", "steepest_lr", "min_loss_lr")} | {"lrs": r["lrs"][::5], "losses": r["losses"][::5]},
        phase="optimizer")

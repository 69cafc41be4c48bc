"""Turn the diagnose battery's measurements into findings (thresholds in :mod:`thresholds`)."""

from __future__ import annotations

import math
from typing import Any

from mlsleuth.report import Finding, Location
from mlsleuth.runtime import thresholds as T
from mlsleuth.runtime.common import fmt


def diagnose_findings(checks: dict[str, Any], trace: dict[str, Any], *, path: str | None, function: str) -> list[Finding]:
    out: list[Finding] = []

    def add(rule, category, severity, message, observation, next_test, fix=None, measurements=None, **loc):
        out.append(Finding(rule=rule, category=category, severity=severity, message=message, observation=observation,
                           next_test=next_test, fix=fix, measurements=measurements or {},
                           location=Location(path=path, function=function, **{k: v for k, v in loc.items() if v is not None})))

    for w in checks.get("weights", []):
        if w.get("last_layer"):
            continue  # zero-initialising the final layer is a known, safe trick
        add("symmetric-init", "architecture", "warning",
            f"'{w['module'] or w['name']}' starts with {'all-zero' if w['all_zero'] else 'identical'} rows: its units are clones and receive identical updates",
            f"{w['name']}: {w['rows']} rows identical at initialisation{' (all exactly 0)' if w['all_zero'] else ''}; this is not the model's final weight layer",
            f"print({w['name']}.std(dim=0)) right after building the model",
            "remove the constant/zero init of hidden layers (keep PyTorch's default or use Kaiming/Xavier)",
            measurements=w, module=w["module"] or "(model)", parameter=w["name"], phase="setup")
    for u in checks.get("unregistered", []):
        where = f"{u['module']}.{u['attribute']}" if u["module"] else u["attribute"]
        add("unregistered-submodule", "architecture", "error",
            f"'{where}' holds layers in a plain {u['container']}: nn.Module does not register them, so model.parameters(), .to(device), state_dict() and the optimizer miss them",
            f"{u['unregistered_parameters']} parameter tensor(s) ({u['numel']} values) reachable through {where} are not in model.parameters()",
            f"print(sum(p.numel() for p in model.parameters())) and compare with the layers in {where}",
            "use nn.ModuleList / nn.ModuleDict / nn.Parameter (or register_buffer for constants)",
            measurements=u, module=where, phase="setup")
    inputs = checks.get("inputs")
    if inputs and not trace.get("input_stats"):
        trace_like = {"input_stats": inputs, "input_module": "(inputs)"}
        from mlsleuth.runtime.trace_findings import trace_findings

        out.extend(f for f in trace_findings(trace_like, path=path, command="") if f.rule.startswith("input-"))
    _overfit(add, checks.get("overfit") or {}, trace)
    _causal(add, checks.get("causal"))
    _ablation(add, checks.get("ablation"), checks.get("overfit") or {})
    _lr_range(add, checks.get("lr_range"))
    return out


def _overfit(add, ov: dict, trace: dict) -> None:
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
    add("overfit-one-batch", "training-loop", "error",
        f"the model cannot overfit a single batch; implicated: {implicated} - {why}",
        f"loss {fmt(initial)} -> {fmt(final)} (best {fmt(min(losses))}) after {len(losses)} step(s) on one fixed batch with "
        f"{ov.get('optimizer')} lr {ov.get('lr')}; target was {int(100 * T.OVERFIT_TARGET_FRACTION)}% of the initial loss"
        + (f"; accuracy on the batch {fmt(ov['accuracy'])}" if ov.get("accuracy") is not None else ""),
        {"loss wiring": "print(torch.autograd.grad(loss, outputs)[0].abs().max()) and the loss's input range; compare with a known-good loss call",
         "gradient flow": "after loss.backward(), list parameters whose .grad is None or zero; look for detach/no_grad/.item() on the path",
         "numerics": "mlsleuth nan FILE:FUNCTION localises the first non-finite value",
         "capacity or learning rate": "re-run with --lr-range to pick a learning rate, then with a wider model; one of them should overfit"}[implicated],
        measurements={"implicated": implicated, "initial": initial, "final": final, "best": min(losses), "curve": curve,
                      "steps": len(losses), "params_without_grad": no_grad[:20]},
        step=len(losses) - 1, phase="optimizer")


def _causal(add, c: dict | None) -> None:
    if not c or c.get("skipped") or c.get("future_grad", 0) <= 0:
        return
    add("causal-leakage", "architecture", "error",
        "the output at time t depends on inputs after t: the model can see the future (a missing or wrong causal mask, a bidirectional layer, or a shift error)",
        f"d output[t={c['t']}] / d {c['via']}[t'] reached {fmt(c['future_grad'])} for t' > t (first at t'={c['first_leaking_step']}; "
        f"past/present max {fmt(c['past_grad'])}) over {c['time_steps']} steps; it must be exactly 0 for a causal model",
        "perturb the input at the last time step and check whether earlier outputs change (they must not)",
        "pass a causal mask (e.g. nn.Transformer.generate_square_subsequent_mask / is_causal=True), and shift targets by one",
        measurements=c, module="(model)", phase="forward")


def _ablation(add, a: dict | None, ov: dict) -> None:
    if not a or a.get("skipped") or a.get("real") is None:
        return
    real, shuffled, rand = a["real"], a.get("shuffled"), a.get("random")
    baselines = [v for v in (shuffled, rand) if isinstance(v, (int, float)) and math.isfinite(v)]
    if not baselines:
        return
    best_baseline = min(baselines)
    if real > (1 - T.ABLATION_MIN_GAIN) * best_baseline:
        add("input-ignored", "data", "warning",
            "training on the real inputs does no better than training on shuffled or random inputs: the model is not using its inputs",
            f"after {a['steps']} steps on one batch from the same init: loss {fmt(real)} with real inputs, {fmt(shuffled)} with inputs shuffled "
            f"against their labels, {fmt(rand)} with random inputs (real must be at least {int(100 * T.ABLATION_MIN_GAIN)}% lower)",
            "print(model(x).std(0)) for two very different inputs: identical outputs mean the input path is cut (overwritten, detached, or zero-weighted)",
            "trace where the input enters the forward; check for overwritten variables, a wrong argument order, or a zeroed input projection",
            measurements=a, module="(model)", phase="forward")


def _lr_range(add, r: dict | None) -> None:
    if not r:
        return
    if r.get("skipped"):
        add("lr-range-suggestion", "hyperparameter", "info", "the learning-rate range test could not find a usable range",
            f"{r['skipped']} ({len(r.get('losses', []))} points)", "re-run with a smaller model output scale or check for NaN sources",
            measurements=r, phase="optimizer")
        return
    add("lr-range-suggestion", "hyperparameter", "info",
        f"the learning-rate range test suggests a learning rate around {fmt(r['suggested_lr'])}",
        f"smoothed loss fell fastest at lr {fmt(r['steepest_lr'])} and was lowest at lr {fmt(r['min_loss_lr'])} "
        f"(exponential sweep over {len(r['lrs'])} steps from {fmt(r['lrs'][0])})",
        "train a few hundred steps at the suggested LR and at 3x above/below it; keep the best",
        measurements={k: r[k] for k in ("suggested_lr", "steepest_lr", "min_loss_lr")} | {"lrs": r["lrs"][::5], "losses": r["losses"][::5]},
        phase="optimizer")

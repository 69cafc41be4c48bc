"""The ``trace`` checks for physics-informed networks (PINNs).

They read what the child's PINN observer (:mod:`mlsleuth.runtime.child.trace_pinn`) measured, found in the
trace run's data under ``"pinn"``: every ``torch.autograd.grad`` call site that differentiates with respect
to inputs, the loss split into its terms on the sampled steps (value and gradient norm per term), and the
ranges of the model's inputs. A script that never differentiates with respect to its inputs is no PINN and
draws nothing here. Registered with the other trace checks (``checks.py`` imports this module).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from mlsleuth.runtime import loss_terms
from mlsleuth.runtime import thresholds as T
from mlsleuth.runtime.common import fmt
from mlsleuth.runtime.registry import Found, runtime_check
from mlsleuth.runtime.trace.locations import site_location

RATIO_STEPS = 5  # the imbalance verdict reads the first sampled steps (the loss split at initialisation)


def pinn_data(run: Any) -> dict | None:
    """The PINN observer's measurements when the traced script is a PINN (differentiated w.r.t. its inputs)."""
    data = run.data.get("pinn")
    return data if data and data.get("active") and data.get("sites") else None




def _where(site: dict) -> str:
    return f"{os.path.basename(site.get('path') or '?')}:{site.get('line')}"


def _training_sites(pinn: dict) -> list[dict]:
    """Derivative sites that ran before a backward in most of the steps that had one (the residual of the training step)."""
    steps = max(int(pinn.get("backward_steps") or 0), 1)
    return [s for s in pinn["sites"] if s.get("before_backward", 0) >= max(1, T.PINN_TRAINING_SITE_FRACTION * steps)]


def _split(pinn: dict) -> list[dict]:
    return loss_terms.split_breakdowns(pinn.get("breakdowns"))


def _dead_terms(pinn: dict) -> list[dict]:
    """Terms of the loss that carried no gradient to the parameters on every sampled step (and were not 0)."""
    splits = _split(pinn)
    if not splits:
        return []
    seen: dict[tuple, list[dict]] = {}
    for b in splits:
        for i, t in enumerate(b["terms"]):
            seen.setdefault((i, t["name"]), []).append(t)
    dead = []
    for (_i, name), rows in seen.items():
        if len(rows) == len(splits) and all(not r.get("reaches_parameters") or not r.get("grad_norm") for r in rows) \
                and any(r.get("value") for r in rows):
            dead.append({"name": name, "value": rows[0]["value"], "steps": len(rows), "requires_grad": rows[0].get("requires_grad")})
    return dead


def _detached_sites(pinn: dict) -> list[tuple[dict, str]]:
    """Derivative sites whose result reached the loss without a graph, with the evidence for each."""
    training = _training_sites(pinn)
    dead = _dead_terms(pinn)
    out = []
    for s in pinn["sites"]:
        if s.get("on_detached_calls") and s.get("error"):
            out.append((s, "on-detached"))
        elif s in training and s.get("chained_without_create_graph", 0) >= max(1, T.PINN_TRAINING_SITE_FRACTION * s["calls"]):
            out.append((s, "second-derivative"))
        elif s in training and dead and s.get("no_create_graph_calls", 0) >= max(1, T.PINN_TRAINING_SITE_FRACTION * s["calls"]):
            out.append((s, "dead-term"))
    return out


def _unused_sites(pinn: dict) -> list[dict]:
    """Derivative sites taken with respect to points the output was not computed from (or that did not require grad)."""
    return [s for s in pinn["sites"] if s.get("inputs_without_grad_calls") or s.get("none_results")
            or "not have been used in the graph" in (s.get("error") or {}).get("message", "")]


def loss_term_summary(pinn: dict | None) -> dict | None:
    """The per-term breakdown for the report's stats (:func:`mlsleuth.runtime.loss_terms.summary`): the first and
    last sampled steps, each term's value, gradient norm and share of the total, and the largest/smallest ratios."""
    if not pinn or not pinn.get("active"):
        return None
    return loss_terms.summary(pinn.get("breakdowns"))


def loss_terms_text(summary: dict) -> str:
    """One line for the report's summary: the PINN loss split into its terms at the last sampled step."""
    return loss_terms.text(summary, "PINN loss terms")


def _median(values: list[float]) -> float | None:
    vals = sorted(values)
    if not vals:
        return None
    k = len(vals) // 2
    return vals[k] if len(vals) % 2 else 0.5 * (vals[k - 1] + vals[k])


def _terms_text(b: dict) -> str:
    return ", ".join(f"{t['name']} = {fmt(t['value'])} (grad norm {fmt(t['grad_norm'])})" for t in b["terms"])


@runtime_check("pinn-derivative-detached", tool="trace", category="loss", severity="error")
def pinn_derivative_detached(run: Any) -> Iterator[Found]:
    """A derivative in the PINN residual taken without create_graph=True.

    What it finds: a torch.autograd.grad call with respect to the network's inputs, made in (at least
    {pct.PINN_TRAINING_SITE_FRACTION}% of) the training steps before the backward, without create_graph=True,
    whose result feeds the loss: a second derivative taken of a first derivative (u_xx from u_x), a derivative
    whose loss term then carried no gradient to the parameters, or a derivative taken of such a detached
    derivative (which raises "element 0 of tensors does not require grad").
    Why it matters: without create_graph the returned derivative is a constant with no history; the residual
    built on it trains nothing (or only through its other terms), so the network fits the boundary
    conditions alone while the PDE loss stays flat and the run raises no error.
    How to confirm: print(u_xx.requires_grad, u_xx.grad_fn) right after the call: False and None; or compare
    the gradient of the PDE term alone, torch.autograd.grad(loss_pde, model.parameters(), allow_unused=True).
    What to do instead: pass create_graph=True to every autograd.grad call whose result enters the loss
    (first and higher derivatives alike); keep create_graph=False only for derivatives used for logging.
    """
    pinn = pinn_data(run)
    if pinn is None:
        return
    dead = _dead_terms(pinn)
    for site, why in _detached_sites(pinn):
        if why == "second-derivative":
            evidence = (f"in {site['chained_without_create_graph']} of {site['calls']} call(s) it differentiated an earlier derivative "
                        "(a second derivative) and returned a tensor with no graph")
        elif why == "dead-term":
            evidence = f"{site['no_create_graph_calls']} of {site['calls']} call(s) without create_graph"
        else:
            err = site["error"]
            evidence = f"it differentiated a derivative taken without create_graph and raised {err['type']}: {err['message'][:120]}"
        if dead:
            evidence += "; the loss term(s) " + ", ".join(f"{d['name']} (= {fmt(d['value'])})" for d in dead) + \
                        " carried no gradient to the parameters on every sampled step"
        yield Found(
            f"the derivative at {_where(site)} is taken without create_graph=True: the residual built on it is a constant, "
            "so the PDE term trains nothing",
            observation=f"torch.autograd.grad at {_where(site)} ran before the backward in {site['before_backward']} step(s); {evidence}",
            next_test="print(u_xx.requires_grad, u_xx.grad_fn) after the call (False, None), or the PDE term's gradient: "
                      "torch.autograd.grad(loss_pde, list(model.parameters()), allow_unused=True)",
            fix="pass create_graph=True to every torch.autograd.grad whose result enters the loss",
            measurements={"site": {k: v for k, v in site.items() if k != "steps"}, "dead_terms": dead},
            phase="loss", **site_location(run, site))


@runtime_check("pinn-loss-term-no-grad", tool="trace", category="loss", severity="error")
def pinn_loss_term_no_grad(run: Any) -> Iterator[Found]:
    """A term of the PINN loss carries no gradient to the network's parameters.

    What it finds: the loss backpropagated by a PINN (a script that differentiates the network with respect
    to its inputs) is a sum of terms, and one of them, non-zero, had no gradient (or an exactly zero one)
    with respect to the trained parameters on every sampled step. Found by splitting the backward's loss
    into the scalar terms added to build it and differentiating each; reported under a cause of its own
    when a derivative taken without create_graph explains it (pinn-derivative-detached).
    Why it matters: that term adds to the printed loss but never moves the weights: a residual built from
    tensors cut from the graph (.detach(), .item(), a numpy round trip, torch.tensor(...) of a result), or
    a second derivative that is identically zero (a ReLU network is piecewise linear, so u_xx = 0 and the
    diffusion term vanishes), leaves the physics out of training.
    How to confirm: torch.autograd.grad(term, list(model.parameters()), allow_unused=True) for that term:
    every entry None or zero.
    What to do instead: build the term from the network's output with tensor operations only (no .detach(),
    .item() or numpy), and use a smooth activation (tanh, sin, SiLU) when the residual needs second derivatives.
    """
    pinn = pinn_data(run)
    if pinn is None or _detached_sites(pinn) or _unused_sites(pinn):
        return  # explained by a cause of its own (pinn-derivative-detached, pinn-collocation-no-grad)
    dead = _dead_terms(pinn)
    if not dead:
        return
    splits = _split(pinn)
    relu = pinn.get("relu")
    for d in dead:
        hint = ("; the model contains ReLU layers, whose second derivative is zero everywhere" if relu
                else "; the term is cut from the graph somewhere between the network's output and the sum")
        yield Found(
            f"the loss term {d['name']} carries no gradient to the network's parameters: it adds to the loss but never trains the model",
            observation=f"over {d['steps']} sampled step(s) the loss split into {_terms_text(splits[0])} (step {splits[0]['step']}); "
                        f"{d['name']} has no path to any trained parameter{hint}",
            next_test=f"torch.autograd.grad({d['name']}, list(model.parameters()), allow_unused=True): every entry None or zero",
            fix=("use a smooth activation (nn.Tanh, a sine, nn.SiLU) so that second derivatives are not zero" if relu
                 else "build the term from the network's output with tensor operations only (no .detach(), .item(), numpy or torch.tensor(...))"),
            measurements={"term": d, "breakdown": splits[0]}, phase="loss", step=splits[0]["step"])


@runtime_check("pinn-collocation-no-grad", tool="trace", category="data", severity="error")
def pinn_collocation_no_grad(run: Any) -> Iterator[Found]:
    """The points a PINN differentiates at do not require gradients, or are not the points the network saw.

    What it finds: a torch.autograd.grad call with respect to input points that do not have requires_grad
    set, or that returned None for them (allow_unused=True), or that raised because the output was not
    computed from them (requires_grad_ set after the forward, or a copy of the points differentiated).
    Why it matters: the derivative of the network with respect to its input only exists when the very tensor
    passed to the network required gradients when the network ran. Otherwise autograd raises, or with
    allow_unused=True returns None (or zeros with materialize_grads), and a residual built on it is wrong.
    How to confirm: print(x.requires_grad) just before u = model(x), and check that the tensor passed to
    autograd.grad is that same x (not a clone or a re-created tensor).
    What to do instead: create the collocation points with requires_grad=True (or call x.requires_grad_(True))
    before the forward, and differentiate with respect to exactly that tensor.
    """
    pinn = pinn_data(run)
    if pinn is None:
        return
    for site in _unused_sites(pinn):
        err = site.get("error") or {}
        if site.get("inputs_without_grad_calls"):
            what = f"in {site['inputs_without_grad_calls']} of {site['calls']} call(s) the points did not require gradients"
        elif site.get("none_results"):
            what = f"{site['none_results']} result(s) came back None (allow_unused): the output does not depend on those points"
        else:
            what = "the output was not computed from the points differentiated"
        if err:
            what += f"; it raised {err['type']}: {err['message'][:160]}"
        yield Found(
            f"the derivative at {_where(site)} is taken with respect to points that do not carry gradients into the network's output",
            observation=f"torch.autograd.grad at {_where(site)}: {what}",
            next_test="print(x.requires_grad) right before u = model(x), and check autograd.grad gets that same tensor x",
            fix="create the collocation points with requires_grad=True (or x.requires_grad_(True)) before the forward "
                "and differentiate with respect to that very tensor",
            measurements={"site": {k: v for k, v in site.items() if k != "steps"}}, phase="loss", step=site.get("first_step"),
            **site_location(run, site))


@runtime_check("pinn-coordinates-unscaled", tool="trace", category="data", severity="warning")
def pinn_coordinates_unscaled(run: Any) -> Iterator[Found]:
    """PINN collocation coordinates far from unit scale.

    What it finds: the coordinates a PINN differentiates with respect to reach beyond {T.PINN_COORD_MAX:g} in
    magnitude (x in [0, 1e4] metres, t in seconds over days), or a coordinate spans less than
    {T.PINN_COORD_MIN_SPAN:g} over all its points (micrometres in metres).
    Why it matters: the network's initialisation and its tanh or sine activations assume inputs of order
    one: large coordinates saturate the first layer, tiny ones make the solution look constant, and every
    derivative with respect to the coordinate is scaled by the same factor (its square for second
    derivatives), so the residual's terms land orders of magnitude apart.
    How to confirm: print(x.min(0), x.max(0)) of the collocation points; rewrite the residual in scaled
    variables and compare the initial loss terms.
    What to do instead: non-dimensionalise: feed x / L (and t / T) to the network, and scale the derivatives
    in the residual by 1/L (1/L^2 for second derivatives), or rewrite the equation in dimensionless form.
    """
    pinn = pinn_data(run)
    if pinn is None:
        return
    for site in _training_sites(pinn) or pinn["sites"]:
        cols = site.get("coordinates") or []
        big = [(j, lo, hi) for j, (lo, hi) in enumerate(cols) if max(abs(lo), abs(hi)) > T.PINN_COORD_MAX]
        small = [(j, lo, hi) for j, (lo, hi) in enumerate(cols)
                 if 0 < hi - lo < T.PINN_COORD_MIN_SPAN and max(abs(lo), abs(hi)) < T.PINN_COORD_MIN_SPAN]
        if not big and not small:
            continue
        j, lo, hi = (big or small)[0]
        yield Found(
            f"the collocation coordinates at {_where(site)} are far from unit scale (column {j} spans {fmt(lo)}..{fmt(hi)}): "
            "the network sees saturated or nearly constant inputs and the residual's terms land orders of magnitude apart",
            observation=f"points differentiated at {_where(site)}: per-column ranges " +
                        ", ".join(f"[{fmt(a)}, {fmt(b)}]" for a, b in cols) +
                        f" (flagged beyond {fmt(T.PINN_COORD_MAX)} in magnitude, or spanning less than {fmt(T.PINN_COORD_MIN_SPAN)})",
            next_test="rescale the coordinates to [0, 1] (x / L), scale the derivatives by 1/L, and compare the initial loss terms",
            fix="non-dimensionalise: feed x / L to the network and write the residual in the scaled variable",
            measurements={"coordinates": cols}, phase="data", **site_location(run, site))
        return


@runtime_check("pinn-loss-terms-imbalanced", tool="trace", category="loss", severity="warning")
def pinn_loss_terms_imbalanced(run: Any) -> Iterator[Found]:
    """PINN loss terms orders of magnitude apart.

    What it finds: on the first 5 sampled steps the PINN's loss splits into terms (PDE residual,
    boundary, initial, data) of which the largest is at least {T.PINN_TERM_RATIO:g} times the smallest,
    both in value and in gradient norm with respect to the parameters (medians over those steps).
    Why it matters: the optimizer follows the summed gradient, so the small term's share of each update is
    lost: the network satisfies the dominant term (usually the residual in raw physical units) and ignores
    the boundary or initial conditions, while the total loss falls convincingly (Wang, Teng and Perdikaris
    2021, gradient pathologies in PINNs).
    How to confirm: the report's stats list each term's value and gradient norm (pinn_loss_terms); evaluate
    the error on the boundary alone after training.
    What to do instead: non-dimensionalise the equations first; then weight the terms (fixed weights from
    the measured gradient norms, or an adaptive scheme), or impose the boundary conditions exactly.
    """
    pinn = pinn_data(run)
    if pinn is None:
        return
    early = [b for b in _split(pinn)][:RATIO_STEPS]
    if not early:
        return
    value_ratios, grad_ratios = [], []
    for b in early:
        v = loss_terms.ratio([t["value"] for t in b["terms"]])
        g = loss_terms.ratio([t["grad_norm"] for t in b["terms"] if t.get("reaches_parameters")])
        if v is not None and g is not None:
            value_ratios.append(v)
            grad_ratios.append(g)
    rv, rg = _median(value_ratios), _median(grad_ratios)
    if rv is None or rg is None or rv < T.PINN_TERM_RATIO or rg < T.PINN_TERM_RATIO:
        return
    first = early[0]
    live = [t for t in first["terms"] if t["value"]]
    big = max(live, key=lambda t: abs(t["value"]))
    small = min(live, key=lambda t: abs(t["value"]))
    yield Found(
        f"the PINN loss terms are orders of magnitude apart ({big['name']} about {fmt(rv)} times {small['name']}): "
        f"the optimizer follows {big['name']} and {small['name']} is effectively ignored",
        observation=f"at step {first['step']}: {_terms_text(first)}; median ratio over {len(value_ratios)} sampled step(s): "
                    f"values {fmt(rv)}, gradient norms {fmt(rg)} (flagged at {fmt(T.PINN_TERM_RATIO)})",
        next_test="non-dimensionalise the equation (or weight the terms by the ratio of their gradient norms) and compare "
                  "the boundary error after the same number of steps",
        fix="rescale the problem to order-one variables first; then weight the terms or impose the boundary conditions exactly",
        measurements={"value_ratio": rv, "grad_norm_ratio": rg, "breakdown": first}, phase="loss", step=first["step"])


@runtime_check("pinn-collocation-coverage", tool="trace", category="data", severity="warning")
def pinn_collocation_coverage(run: Any) -> Iterator[Found]:
    """PINN collocation points that cover only part of the domain.

    What it finds: the points the residual is evaluated on (the widest derivative call site of the training
    step) span less than {pct.PINN_COLLOCATION_COVERAGE}% of the range every model input spans along some
    coordinate (the boundary and initial points included): for example torch.rand(N, 1) on a domain [0, pi].
    Why it matters: between the covered region and the far boundary the network is constrained by nothing
    but the boundary values: the residual loss falls to zero while the solution there is any smooth
    interpolant, and the error is largest exactly where no point was placed.
    How to confirm: print the min and max of the collocation points next to the boundary points; plot the
    residual of the trained network on a uniform grid of the whole domain.
    What to do instead: sample the collocation points over the whole domain (lo + (hi - lo) * torch.rand(N, d)),
    and resample them during training.
    """
    pinn = pinn_data(run)
    if pinn is None:
        return
    total = pinn.get("model_inputs") or []
    sites = [s for s in _training_sites(pinn) if s.get("coordinates") and len(s["coordinates"]) == len(total)]
    if not sites or not total:
        return
    for j, (lo, hi) in enumerate(total):
        span = hi - lo
        if span <= 0:
            continue
        widest = max(sites, key=lambda s: s["coordinates"][j][1] - s["coordinates"][j][0])
        clo, chi = widest["coordinates"][j]
        share = (chi - clo) / span
        if share >= T.PINN_COLLOCATION_COVERAGE:
            continue
        yield Found(
            f"the residual's points cover only {share:.0%} of the domain along coordinate {j}: the PDE is not enforced on the rest",
            observation=f"points differentiated at {_where(widest)} span [{fmt(clo)}, {fmt(chi)}] on coordinate {j}, while the "
                        f"model's inputs (boundary points included) span [{fmt(lo)}, {fmt(hi)}] (flagged below "
                        f"{T.PINN_COLLOCATION_COVERAGE:.0%})",
            next_test="print(x_col.min(0), x_col.max(0)) next to the boundary points; evaluate the residual on a uniform grid of the whole domain",
            fix="sample collocation points over the whole domain: lo + (hi - lo) * torch.rand(N, d), resampled during training",
            measurements={"coordinate": j, "collocation": [clo, chi], "domain": [lo, hi], "share": share},
            phase="data", **site_location(run, widest))
        return

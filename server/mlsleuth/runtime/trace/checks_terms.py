"""``trace`` checks on which parameters each backward pass reaches, in scripts with several optimizers.

They read ``terms``, what :mod:`mlsleuth.runtime.child.trace_terms` measured on the sampled steps: the loss of each
backward split into its terms with the parameters each reaches (``terms``), and gradients one backward left in
parameters that another optimizer then stepped on (``leaks``). Registered with the other trace checks
(``checks.py`` imports this module). Import-light: no torch here.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from typing import Any

from mlsleuth.runtime.common import fmt
from mlsleuth.runtime.registry import Found, runtime_check
from mlsleuth.runtime.trace.locations import site_location

MIN_OCCURRENCES = 2  # sampled backward passes (or optimizer steps) that must show it
MIN_LEFTOVER_SHARE = 0.01  # leftover gradient norm / gradient norm at the step, median over the steps seen


def _terms(run: Any) -> dict:
    return run.data.get("terms") or {}


def _optimizer(run: Any, index: int) -> str:
    """``optimizer #1 (Adam over 'd')`` from the child's per-optimizer record."""
    rec = next((o for o in _terms(run).get("optimizers") or [] if o.get("index") == index), None)
    if rec is None:
        return f"optimizer #{index}"
    over = f" over '{rec['label']}'" if rec.get("label") else ""
    return f"optimizer #{index} ({rec.get('type')}{over})"


def _optimizer_named(run: Any, index: int, name: str | None) -> str:
    """``'trainer_E' (Adam over 'encoder')`` when the user's code names it, else as :func:`_optimizer`."""
    if not name:
        return _optimizer(run, index)
    rec = next((o for o in _terms(run).get("optimizers") or [] if o.get("index") == index), None) or {}
    over = f" over '{rec['label']}'" if rec.get("label") else ""
    return f"'{name}' ({rec.get('type', 'optimizer')}{over})"


def _short(path: Any) -> str:
    return str(path).replace("\\", "/").rsplit("/", 1)[-1] if path else "?"


def _term_name(term: dict) -> str:
    loss, model = term.get("loss"), term.get("model")
    if loss:
        return f"{loss['label']} at {_short(loss.get('path'))}:{loss.get('line')}"
    if model:
        return f"the one built on '{model['label']}' at {_short(model.get('path'))}:{model.get('line')}"
    return "another term"


@runtime_check("loss-term-detached-from-trained-model", tool="trace", category="training-loop", severity="error")
def loss_term_detached_from_trained_model(run: Any) -> Iterator[Found]:
    """A loss term reaches the trained model only through a detached output.

    What it finds: with two or more optimizers, a term of the loss passed to ``backward()`` (``adv`` in
    ``loss = adv + lam * l1``) that reaches none of the parameters of the optimizer(s) stepping right after that
    backward, while another term of the same loss does; the term feeds another model (a discriminator, a critic) a
    tensor that is a detached copy of an output of the model being stepped (``D(fake.detach())``,
    ``D(torch.cat([cond, fake.detach()], 1))``: the same storage or the same values, without gradient), and its
    gradient only lands in the other model's parameters, where no optimizer step uses it (they are cleared before
    their own optimizer steps). Seen on every sampled step where the term occurs. A term that reaches the stepped parameters
    on some steps, a detached input that comes from a model nobody steps here (a frozen encoder or teacher), and
    a term whose gradient the other optimizer does step on (reported as optimizer-steps-other-loss-gradients) are
    not reported.
    Why it matters: the term is computed, logged and looks healthy, but it contributes nothing to the update: a
    GAN generator trained on ``adv(D(fake.detach())) + l1`` learns from the L1 term alone (a plain regression
    model), an auxiliary objective meant to shape the trained model does not.
    How to confirm: backpropagate the term alone and print the trained model's gradient:
    ``adv.backward(retain_graph=True)`` then ``[p.grad for p in G.parameters()]`` is all None (or zero).
    What to do instead: feed the other model the output itself (``D(fake)``); keep ``.detach()`` for the other
    model's own update (the discriminator step), and freeze that model with ``requires_grad_(False)`` during this
    step if its gradients are not wanted.
    """
    terms = _terms(run)
    leaked_from = {(leak.get("path"), leak.get("line")) for leak in terms.get("leaks") or []}
    stepped = {o.get("index") for o in terms.get("optimizers") or [] if o.get("stepped")}
    for term in terms.get("terms") or []:
        bad = term.get("first_bad")
        if not bad or term.get("bad", 0) < MIN_OCCURRENCES or term.get("good", 0):
            continue
        if (term.get("path"), term.get("line")) in leaked_from:
            continue  # its gradient is not thrown away: another optimizer steps on it (the leak check says so)
        if stepped and not set(bad.get("optimizers_reached") or ()) <= stepped:
            continue  # it reaches parameters of an optimizer that never steps: another check's business
        model, loss = term.get("model") or {}, term.get("loss")
        name = _term_name(term)
        sources = bad.get("detached_from") or []
        source = " and ".join(f"'{s}'" for s in sources) or "the trained model"
        other = f"'{model.get('label')}'"
        trained = ", ".join(_optimizer(run, i) for i in bad.get("stepped") or [])
        reached = ", ".join(_optimizer(run, i) for i in bad.get("optimizers_reached") or [])
        reached = f"only parameters of {reached}" if reached else "only parameters that no optimizer holds"
        others = ", ".join(_term_name(o) for o in bad.get("other_terms") or []) or "the other terms"
        where = site_location(run, model) or site_location(run, loss or {}) or site_location(run, term)
        yield Found(
            f"a loss term ({name}) trains nothing: it runs {other} on a detached output of {source}, so no gradient "
            f"reaches {source}, which this backward trains (only {others} does)",
            observation=f"on {term['bad']} sampled backward pass(es) of the loss at {_short(term.get('path'))}:{term.get('line')} "
                        f"(first at step {bad.get('step')}), this term reached none of the parameters of {trained}, which stepped after "
                        f"this backward, and {reached} ({bad.get('params_reached')} tensor(s)), whose gradient from it no optimizer "
                        f"step used; {other} was given a copy of the output of {source} without its gradient",
            next_test="backpropagate this term alone (term.backward(retain_graph=True)) and print the gradients of the trained "
                      "model's parameters: they are None or zero",
            fix=f"pass the output of {source} itself (not .detach()) to {other} in this loss; keep .detach() only for the update "
                f"of {other} itself, and freeze it with requires_grad_(False) here if its gradients are not wanted",
            measurements={k: term.get(k) for k in ("judged", "bad", "good", "first_bad", "loss", "model")},
            module=model.get("label"), step=bad.get("step"), phase="backward", **where)


@runtime_check("optimizer-steps-other-loss-gradients", tool="trace", category="training-loop", severity="warning")
def optimizer_steps_other_loss_gradients(run: Any) -> Iterator[Found]:
    """An optimizer steps on gradients that another loss's backward left in its parameters.

    What it finds: with two or more optimizers, a backward pass (the generator's loss) whose gradient reaches
    parameters of an optimizer that does not step after it (the encoder's), where that gradient is still there,
    uncleared, when that optimizer steps after a later backward of a different loss (the encoder's own loss): its
    ``zero_grad()`` is missing for those parameters, or runs before the first backward instead of before its own.
    The leftover is measured (its norm) at the start of the next backward, and the clears made in between by
    ``zero_grad()`` or by setting ``.grad`` to None are followed. Not reported: several backward passes of the same
    loss before one step (gradient accumulation), a backward followed by the steps of every optimizer it reaches (one
    summed loss, two optimizers), a leftover cleared before that optimizer steps (the usual GAN loop, where the
    generator's backward also reaches the discriminator), and an optimizer that never clears its gradients at all
    (zero-grad-missing).
    Why it matters: the optimizer follows the sum of its own loss's gradient and a gradient meant for another update,
    scaled by another loss's weights: an encoder trained on its VAE loss also drifts along the generator's objective,
    and with Adam the doubled gradient only shows as slightly different losses.
    How to confirm: print the gradient norm of that optimizer's parameters right before its own ``backward()``:
    it is not zero or None.
    What to do instead: call that optimizer's ``zero_grad()`` right before its own backward (or after the other
    loss's step); if the parameters should not get the other loss's gradient at all, detach the tensor they feed it
    or pass ``inputs=`` to that backward; if they should, sum the losses and backward once.
    """
    terms = _terms(run)
    checked = terms.get("steps_checked") or {}
    stale = {s.get("optimizer_index") for s in run.data.get("stale_grad_steps") or []}
    for leak in terms.get("leaks") or []:
        idx = leak.get("optimizer")
        if idx in stale:
            continue  # it never clears its gradients at all: zero-grad-missing reports that
        count, seen = leak.get("count", 0), checked.get(str(idx), 0)
        ratios = [r for r in leak.get("ratios") or [] if isinstance(r, (int, float))]
        if count < MIN_OCCURRENCES or count < 0.5 * seen or not ratios or statistics.median(ratios) < MIN_LEFTOVER_SHARE:
            continue
        share = statistics.median(ratios)
        name = leak.get("optimizer_name")
        opt = _optimizer_named(run, idx, name)
        label = next((o.get("label") for o in terms.get("optimizers") or [] if o.get("index") == idx), None)
        after = ", ".join(_optimizer(run, i) for i in leak.get("stepped_after_leak") or [])
        own = f"{_short(leak.get('own_path'))}:{leak.get('own_line')}" if leak.get("own_line") else "its own loss"
        yield Found(
            f"{opt} steps on gradients left in its parameters by the backward at {_short(leak.get('path'))}:{leak.get('line')}, "
            f"a loss another optimizer steps on: its zero_grad() is missing before its own backward",
            observation=f"on {count} of {seen} sampled step(s) of this optimizer (first at step {leak.get('step')}): the backward at "
                        f"{_short(leak.get('path'))}:{leak.get('line')} reached {leak.get('params')} of its parameter(s), was followed by "
                        f"the step of {after or 'another optimizer'} only, and its gradient was still there when this optimizer "
                        f"stepped after the backward at {own}; the leftover was {fmt(share * 100)}% of the gradient norm it stepped "
                        f"with (median; norm {fmt(leak.get('leftover_norm'))} of {fmt(leak.get('total_norm'))} at the first)",
            next_test=f"print the gradient norm of {name or 'this optimizer'}'s parameters right before the backward at {own}: "
                      "it is not zero",
            fix=f"call {name or 'this optimizer'}.zero_grad() right before its own backward (at {own}); if these parameters "
                "should not get the other loss's gradient at all, detach what they feed it or pass inputs= to that backward",
            measurements={k: leak.get(k) for k in ("optimizer", "optimizer_name", "count", "params", "leftover_norm", "total_norm",
                                                   "ratios", "stepped_after_leak", "own_line", "step_line")} | {"steps_checked": seen},
            module=label, step=leak.get("step"), phase="optimizer", **site_location(run, leak))

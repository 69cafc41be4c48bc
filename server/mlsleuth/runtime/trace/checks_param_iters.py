"""``trace`` checks on code meant to touch the parameters that touched none: gradient clipping given no parameter
holding a gradient, and a ``model.parameters()`` generator iterated again after it was used up.

They read what :mod:`mlsleuth.runtime.child.trace_param_iters` recorded under ``generic``: ``clip_calls`` (per clip
call site: calls given parameters with gradients, and calls given none while the optimizers' parameters held
gradients) and ``reused_parameter_iterators`` (per creation and reuse site: how often, on which steps, a used-up
parameter generator was asked for more). Registered with the other trace checks (``checks.py`` imports this
module). Import-light: no torch here.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from mlsleuth.runtime.registry import Found, runtime_check
from mlsleuth.runtime.trace.locations import site_location

MIN_STEPS = 2


def _generic(run: Any) -> dict:
    return run.data.get("generic") or {}


def _site(run: Any, path: str | None, line: int | None) -> str:
    if not path or not line:
        return "an unknown line"
    loc = site_location(run, {"path": path, "line": line})
    return f"{os.path.basename(loc.get('path') or path)}:{line}"


def _call(kind: str | None) -> str:
    return f"{kind or 'parameters'}()"


def _flagged_clips(run: Any) -> list[dict]:
    """Clip call sites that, on every call, were given no parameter with a gradient while others had one."""
    out = []
    for rec in _generic(run).get("clip_calls") or []:
        bad = (rec.get("empty") or 0) + (rec.get("gradless") or 0)
        if not rec.get("with_grad") and bad >= 2 and len(rec.get("steps") or []) >= MIN_STEPS:
            out.append(rec)
    return out


@runtime_check("clip-grad-clips-nothing", tool="trace", category="training-loop", severity="warning")
def clip_grad_clips_nothing(run: Any) -> Iterator[Found]:
    """Gradient clipping given no parameter that holds a gradient, so it clips nothing.

    What it finds: a ``clip_grad_norm_`` / ``clip_grad_value_`` call site that, on every traced call (at least two,
    on two steps), was given no parameters at all, or only parameters whose ``.grad`` is None, while the
    optimizer's parameters held gradients. Typical causes: ``model.parameters()`` stored in a variable, used up by
    the optimizer's constructor (or a helper's first loop) and handed to the clip later (a generator can be
    iterated only once); a filtered list that ended empty; clipping another model (the EMA copy, a frozen
    encoder) than the one trained. Calls made before any gradient exists, and calls given a non-empty subset with
    gradients on purpose, are not reported.
    Why it matters: the run believes its gradients are clipped. The returned total norm is 0, logs look calm, and
    the learning rate or loss scale chosen because clipping caps each step lets a spike through: the loss blows
    up or training turns unstable.
    How to confirm: ``params = list(params)`` right before the call and print ``len(params)`` and
    ``sum(p.grad is not None for p in params)``: 0.
    What to do instead: clip what the optimizer trains: ``clip_grad_norm_(model.parameters(), max_norm)`` called
    afresh at the clip, or keep ``params = list(model.parameters())`` (a list can be iterated again).
    """
    for rec in _flagged_clips(run):
        bad = (rec.get("empty") or 0) + (rec.get("gradless") or 0)
        fname = rec.get("function") or "clip_grad_norm_"
        used = rec.get("used_up_generator")
        others = rec.get("others_with_grad") or 0
        if rec.get("empty"):
            what = "no parameters at all"
            if used:
                what += (f": the {_call(used.get('kind'))} generator it got (from {_site(run, used.get('created_path'), used.get('created_line'))}) "
                         f"had already been used up by {_site(run, used.get('used_up_path'), used.get('used_up_line'))}")
        elif rec.get("frozen_only") == rec.get("gradless"):
            what = f"{rec.get('given')} parameter(s), all frozen (requires_grad=False), none holding a gradient"
        else:
            what = f"{rec.get('given')} parameter(s), none of which holds a gradient"
        yield Found(
            f"{fname} is given {what}: it clips nothing, while {others} parameter(s) of the optimizer hold gradients",
            observation=f"{bad} call(s) on steps {', '.join(map(str, rec['steps'][:6]))} were given no parameter with a gradient "
                        f"and no call of this line was given one",
            next_test="params = list(params) right before the call; print len(params) and sum(p.grad is not None for p in params)",
            fix="clip the parameters the optimizer trains: call model.parameters() afresh at the clip, or keep "
                "params = list(model.parameters()) (a generator is used up by its first loop)",
            measurements={k: v for k, v in rec.items() if k not in ("path", "line")},
            step=rec["steps"][0], phase="backward", **site_location(run, rec))


@runtime_check("parameter-generator-reused", tool="trace", category="training-loop", severity="warning")
def parameter_generator_reused(run: Any) -> Iterator[Found]:
    """A ``model.parameters()`` generator iterated again after it was used up: the second loop runs zero times.

    What it finds: a ``parameters()`` / ``named_parameters()`` generator, made in the script's own code, that
    something asked for another element after a first pass had used it up, on at least two steps: a helper that
    loops over ``params`` twice (sum the squared gradient norms, then rescale) given ``model.parameters()``; an
    EMA update zipping a generator stored once at set-up; a generator kept in a variable after the optimizer's
    constructor consumed it. Clip functions given such a generator are reported by clip-grad-clips-nothing.
    Why it matters: a generator can be iterated only once. The second loop sees nothing and does nothing, with
    no error: gradients are measured but never rescaled, the EMA weights stop following, a constraint is never
    applied.
    How to confirm: ``params = list(params)`` at the top of the helper fixes it; or print
    ``sum(1 for _ in params)`` right before the second loop: 0.
    What to do instead: turn the argument into a list once (``params = list(params)``) before looping over it
    more than once, or call ``model.parameters()`` afresh where it is used.
    """
    clipped = {(rec.get("path"), rec.get("line")) for rec in _flagged_clips(run)}
    for rec in _generic(run).get("reused_parameter_iterators") or []:
        if not rec.get("yielded") or len(rec.get("steps") or []) < MIN_STEPS:
            continue
        if (rec.get("path"), rec.get("line")) in clipped:
            continue  # a clip (through a library that listed it first) given the used-up generator: reported there
        made = _site(run, rec.get("created_path"), rec.get("created_line"))
        used = _site(run, rec.get("used_up_path"), rec.get("used_up_line"))
        again = _site(run, rec.get("path"), rec.get("line"))
        kind = _call(rec.get("kind"))
        yield Found(
            f"the {kind} generator made at {made} is used up at {used}, then iterated again at {again}, where it yields "
            "nothing: that loop never runs",
            observation=f"its first pass gave {rec.get('yielded')} parameter(s); it was asked for more after that "
                        f"{rec.get('events')} time(s), on steps {', '.join(map(str, rec['steps'][:6]))}",
            next_test=f"print sum(1 for _ in <the generator>) right before {again}: 0",
            fix="make it a list once (params = list(params)) before iterating it more than once, or call "
                f"model.{kind} afresh where it is used",
            measurements={k: v for k, v in rec.items() if k not in ("path", "line")},
            step=rec["steps"][0], phase="backward", **site_location(run, rec))

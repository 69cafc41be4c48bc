"""``trace`` check on nonlinearities that compute the identity.

It reads ``generic.identity_activations``, what :mod:`mlsleuth.runtime.child.trace_identity_acts` recorded: call
sites of ``leaky_relu`` / ``rrelu`` / ``prelu`` (the modules call them) whose output equalled their input on every
sampled training call although the input held negative values. Registered with the other trace checks
(``checks.py`` imports this module). Import-light: no torch here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mlsleuth.runtime.registry import Found, runtime_check
from mlsleuth.runtime.trace.locations import site_location

MODULE_OF = {"leaky_relu": "LeakyReLU", "leaky_relu_": "LeakyReLU", "rrelu": "RReLU", "rrelu_": "RReLU", "prelu": "PReLU"}


def _setting(rec: dict) -> str:
    """The setting that makes this call the identity, in words."""
    fname = rec.get("function") or ""
    if fname.startswith("leaky_relu") and "negative_slope" in rec:
        slope = rec["negative_slope"]
        return f"negative_slope={slope}, i.e. {float(slope == 'True'):g}" if isinstance(slope, str) else f"negative_slope={slope:g}"
    if fname.startswith("rrelu") and "lower" in rec:
        return f"lower={rec['lower']:g}, upper={rec.get('upper', float('nan')):g}"
    if fname == "prelu" and rec.get("weight_range"):
        lo, hi = rec["weight_range"]
        return f"weight {lo:g}" if lo == hi else f"weight in [{lo:g}, {hi:g}]"
    return "its settings"


def _where(rec: dict) -> str:
    what = MODULE_OF.get(rec.get("function") or "", rec.get("function") or "activation")
    if rec.get("module_call") and rec.get("module"):
        return f"'{rec['module']}' ({what})"
    inside = f" in '{rec['module']}'" if rec.get("module") and rec.get("module") != rec.get("module_type") else ""
    return f"F.{rec.get('function')}{inside}"


@runtime_check("activation-is-identity", tool="trace", category="architecture", severity="warning")
def activation_is_identity(run: Any) -> Iterator[Found]:
    """A nonlinearity that returns its input unchanged.

    What it finds: a ``leaky_relu``, ``rrelu`` or ``prelu`` (as a module or a functional call) whose output equals
    its input exactly on every sampled training call of the first steps, over at least three steps, although a good
    share of the input is negative: a slope of exactly 1. The usual cause is ``nn.LeakyReLU(True)``, the
    ``nn.ReLU(True)`` idiom copied to LeakyReLU, whose first positional argument is ``negative_slope``, not
    ``inplace``: True becomes a slope of 1.0. Others: ``F.leaky_relu(x, True)``, ``nn.RReLU(1, 1)``, a PReLU whose
    weight is 1 and never moves. Activations whose inputs are all positive, healthy slopes (0.01, 0.2), in-place
    activations and ``nn.Identity`` are not reported; a PReLU that starts at 1 and learns is not either.
    Why it matters: a layer stack whose activations are identities is one affine map, however deep: the model
    cannot fit anything nonlinear, and training just plateaus early, with no error.
    How to confirm: print the module (``LeakyReLU(negative_slope=True)``), or check ``torch.equal(act(x), x)`` on
    an input with negative values.
    What to do instead: pass in-place by keyword, ``nn.LeakyReLU(0.2, inplace=True)`` or
    ``nn.LeakyReLU(inplace=True)``; give ``F.leaky_relu`` its slope as a number.
    """
    sites = (run.data.get("generic") or {}).get("identity_activations") or []
    if not sites:
        return
    first, rest = sites[0], sites[1:]
    others = f"; {len(rest)} more call site(s) do the same: {', '.join(_where(r) for r in rest[:4])}" if rest else ""
    steps = first.get("steps") or []
    share = first.get("negative_share") or 0.0
    yield Found(
        f"{_where(first)} returns its input unchanged ({_setting(first)}): the activation is the identity, so the "
        "layers around it collapse into one linear map",
        observation=f"on {first.get('calls')} sampled training call(s) over steps {steps[0]}-{steps[-1]}, its output equalled "
                    f"its input exactly although up to {100 * share:.0f}% of the input values were negative{others}",
        next_test="print the module (e.g. LeakyReLU(negative_slope=True)), or check torch.equal(act(x), x) on an input with "
                  "negative values",
        fix="give the slope as a number and in-place by keyword: nn.LeakyReLU(0.2, inplace=True) or nn.LeakyReLU(inplace=True) "
            "(LeakyReLU's first positional argument is negative_slope)",
        measurements={"sites": sites[:10]}, module=first.get("module") if first.get("module") not in ("", first.get("module_type")) else None,
        step=steps[0] if steps else None, phase="forward", **site_location(run, first))

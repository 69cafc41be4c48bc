"""Hand-made PINN measurements (what runtime/child/trace_pinn.py writes) for the PINN checks' tests."""

from __future__ import annotations


def site(line=10, calls=20, before_backward=20, no_create_graph=0, chained=0, chained_without=0, coords=((0.0, 1.0),), **extra):
    rec = {"path": "/work/train.py", "line": line, "calls": calls, "no_create_graph_calls": no_create_graph,
           "chained_calls": chained, "on_detached_calls": 0, "inputs_without_grad_calls": 0, "none_results": 0,
           "before_backward": before_backward, "first_step": 0, "steps": list(range(calls)),
           "coordinates": [list(c) for c in coords], "outputs_require_grad": True}
    if chained_without:
        rec["chained_without_create_graph"] = chained_without
    rec.update(extra)
    return rec


def term(name, value, grad_norm, reaches=True):
    return {"name": name, "value": value, "requires_grad": True, "grad_norm": grad_norm, "reaches_parameters": reaches}


def breakdowns(*terms_per_step, steps=(0, 1, 2, 3, 4)):
    out = []
    for step, terms in zip(steps, terms_per_step):
        out.append({"step": step, "total": sum(t["value"] for t in terms), "terms": list(terms), "split": True})
    return out


def pinn(sites, splits=(), model_inputs=((0.0, 1.0),), backward_steps=20, relu=False):
    """The trace data of a PINN run: only the ``pinn`` part (the other checks see an empty trace)."""
    return {"pinn": {"active": True, "sites": list(sites), "breakdowns": list(splits), "backward_steps": backward_steps,
                     "model_inputs": [list(c) for c in model_inputs], "relu": relu}}

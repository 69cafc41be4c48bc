"""Norms of many parameters (or their gradients, or their updates) at once (child side, stdlib + torch only).

The trace observer measures every parameter's gradient norm and update size on its sampled steps. One
``float(t.norm())`` per parameter is one kernel and one host sync each; on a model with many small tensors that
per-parameter loop is most of the observer's cost on those steps. Here the float32 tensors of one device are
measured with one ``torch._foreach_norm`` and read back with one ``tolist()`` (a few, one ``float()`` each); any other tensor (half precision,
whose norm is taken in float32 as before; tensor subclasses such as DTensor shards; other dtypes) is measured
one by one as before. The values are the same 2-norms up to the order of the floating-point sums.
"""

from __future__ import annotations

import math
from typing import Any

SMALL_GROUP = 32  # up to this many results are read one float() at a time: cheaper than a stack and a tolist


def _batchable(t: Any, torch: Any) -> bool:
    return type(t) in (torch.Tensor, torch.nn.Parameter) and t.dtype == torch.float32 and not t.is_sparse


def _read(values: list, torch: Any) -> list[float]:
    """The Python floats of 0-d tensors (the same values either way; a few are read one by one)."""
    if len(values) <= SMALL_GROUP:
        return [float(v) for v in values]
    return torch.stack(values).tolist()


def norms(tensors: list) -> list[float]:
    """``float(t.detach().float().norm())`` for each tensor, batched per device where it can be."""
    import torch

    out: list[float] = [math.nan] * len(tensors)
    groups: dict[Any, list[int]] = {}
    for i, t in enumerate(tensors):
        if _batchable(t, torch):
            groups.setdefault(t.device, []).append(i)
        else:
            out[i] = float(t.detach().float().norm())
    for idx in groups.values():
        try:  # detached inputs: no graph is built, no no_grad block needed
            values = _read(torch._foreach_norm([tensors[i].detach() for i in idx]), torch)
        except (RuntimeError, AttributeError, TypeError):  # an older torch or an unusual tensor: one by one
            values = [float(tensors[i].detach().float().norm()) for i in idx]
        for i, v in zip(idx, values):
            out[i] = v
    return out


def update_norms(params: list, befores: list) -> tuple[list[float], list[float]]:
    """``(|p - before|, |before|)`` per pair; pairs not batched are measured as ``norms`` does."""
    import torch

    deltas: list[float] = [math.nan] * len(params)
    bases: list[float] = [math.nan] * len(params)
    groups: dict[Any, list[int]] = {}
    for i, (p, b) in enumerate(zip(params, befores)):
        if _batchable(p, torch) and _batchable(b, torch) and p.device == b.device:
            groups.setdefault(p.device, []).append(i)
        else:
            deltas[i] = float((p.detach().float() - b.float()).norm())
            bases[i] = float(b.float().norm())
    for idx in groups.values():
        ps, bs = [params[i].detach() for i in idx], [befores[i] for i in idx]
        try:  # detached parameters and snapshots: no graph is built
            both = _read(torch._foreach_norm(torch._foreach_sub(ps, bs)) + torch._foreach_norm(bs), torch)
        except (RuntimeError, AttributeError, TypeError):
            both = [float((p - b).norm()) for p, b in zip(ps, bs)] + [float(b.norm()) for b in bs]
        for k, i in enumerate(idx):
            deltas[i], bases[i] = both[k], both[len(idx) + k]
    return deltas, bases

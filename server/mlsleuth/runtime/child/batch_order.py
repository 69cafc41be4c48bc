"""Batch-order probe (child side): does reordering the samples of a batch only reorder the model's outputs?

Stdlib + torch only. In eval mode (no dropout, batch-norm on running statistics), a model whose samples are
independent is equivariant to the order of its batch: ``f(x[perm]) == f(x)[perm]``. The gradient probe
(:func:`probes.batch_dependence`) sees samples mixing through differentiable inputs; this one also sees mixing
through everything else a forward receives per sample - integer lengths, padding masks, ids - and through
indexing by batch position (a positional table sliced with the batch size, a mask tiled instead of
interleaved over heads). Every tensor argument that carries the batch is permuted together, the model is
run twice, and every module output is compared in call order to name the first module that breaks the order.
"""

from __future__ import annotations

import math
from typing import Any

from probes import eval_mode, flat_tensors, preserved_rng

RELATIVE_TOLERANCE = 1e-4  # float32 results of a batched matmul may differ with the batch order by ~1e-6 relative


def _permute(obj: Any, perm: Any, batch: int, dim: int) -> Any:
    """``obj`` with every tensor whose dimension ``dim`` has the batch's size reordered by ``perm``."""
    import torch

    if isinstance(obj, torch.Tensor):
        return obj.index_select(dim, perm.to(obj.device)) if obj.dim() > dim and obj.shape[dim] == batch else obj
    if isinstance(obj, dict):
        return {k: _permute(v, perm, batch, dim) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)) and not hasattr(obj, "_fields"):
        return type(obj)(_permute(v, perm, batch, dim) for v in obj)
    return obj


def _mismatch(a: Any, b: Any, perm: Any, dim: int) -> float:
    """Relative difference between ``b`` (the run on the permuted batch) and ``a`` reordered by ``perm``; a square
    (batch x batch) tensor may also be reordered along both axes (similarity matrices of in-batch pairs)."""
    import torch

    if a.shape != b.shape or not a.numel():
        return 0.0  # a shape that depends on the batch's content (packed sequences): not comparable
    a, b = a.detach().float(), b.detach().float()
    if torch.equal(a, b):
        return 0.0  # the same in both runs: this tensor does not carry the batch (a table whose size equals it by chance)
    expected = a.index_select(dim, perm.to(a.device))
    diff = float((b - expected).abs().max())
    if a.dim() >= 2 and dim == 0 and a.shape[0] == a.shape[1]:
        diff = min(diff, float((b - expected.index_select(1, perm.to(a.device))).abs().max()))
    if not math.isfinite(diff):
        return 0.0
    scale = float(a.abs().max())
    return diff / scale if scale > 0 else diff


def batch_order(model: Any, inputs: tuple, kwargs: dict | None = None, batch_dim: int = 0) -> dict[str, Any]:
    """Run ``model`` on the batch and on the batch rolled by one sample; compare outputs and module outputs.

    Returns ``{"batch": B, "changed": bool, "mismatch": relative difference of the model's output, "first_module":
    the first module (in call order) whose output is not the reordered one, or None}``; or ``{"skipped": reason}``.
    """
    import torch

    kwargs = kwargs or {}
    tensors = [t for t in flat_tensors(list(inputs) + list(kwargs.values())) if isinstance(t, torch.Tensor)]
    if not tensors or tensors[0].dim() <= batch_dim:
        return {"skipped": "no tensor input with a batch dimension"}
    x0 = tensors[0]
    batch = int(x0.shape[batch_dim])
    if batch < 3:
        return {"skipped": "fewer than 3 samples in the batch"}
    if any(size == batch for i, size in enumerate(x0.shape) if i != batch_dim):
        return {"skipped": "another dimension of the input has the batch's size: the batch axis is ambiguous"}
    perm = torch.roll(torch.arange(batch), 1)
    names = {id(m): n for n, m in model.named_modules()}
    outputs: list[list[tuple[str, Any, int]]] = [[], [], []]
    which = [0]

    def keep(mod, _inp, out):
        if mod is model:
            return
        if hasattr(out, "logits") and not isinstance(out, (tuple, list, dict)):
            out = out.logits
        for t in flat_tensors(out):
            if batch in t.shape:
                outputs[which[0]].append((names.get(id(mod), type(mod).__name__), t.detach()))

    handles = [m.register_forward_hook(keep) for m in model.modules() if m is not model]
    try:
        with preserved_rng(), eval_mode(model), torch.no_grad():
            first = model(*inputs, **kwargs)
            which[0] = 1
            second = model(*_permute(tuple(inputs), perm, batch, batch_dim), **_permute(kwargs, perm, batch, batch_dim))
            out_a = _first_along(first, batch, batch_dim)
            out_b = _first_along(second, batch, batch_dim)
            if out_a is None or out_b is None:
                return {"skipped": "no output tensor carries the batch"}
            dim = batch_dim if out_a.dim() > batch_dim and out_a.shape[batch_dim] == batch else 0
            mismatch = _mismatch(out_a, out_b, perm, dim)
            if mismatch > RELATIVE_TOLERANCE:
                # the same batch once more, with the random generators where the second run left them: a forward
                # that samples (a VAE's reparameterisation, injected noise) differs from itself, and its outputs
                # cannot tell a reordering from a new draw
                which[0] = 2
                again = _first_along(model(*inputs, **kwargs), batch, batch_dim)
                if again is not None and again.shape == out_a.shape \
                        and float((again.detach().float() - out_a.detach().float()).abs().max()) > 0:
                    return {"skipped": "the model's outputs change between two runs on the same batch in eval mode "
                                       "(random sampling in forward): a reordered batch cannot be told from a new draw"}
    except Exception as exc:  # a model that cannot take a reordered batch (a stateful cache sized to the batch)
        return {"skipped": f"the reordered batch could not be run: {type(exc).__name__}"}
    finally:
        for h in handles:
            h.remove()
    result: dict[str, Any] = {"batch": batch, "batch_dim": batch_dim, "mismatch": mismatch,
                              "changed": mismatch > RELATIVE_TOLERANCE, "first_module": None,
                              "pairwise": out_a.dim() >= 2 and dim == 0 and out_a.shape[0] == out_a.shape[1] == batch}
    if result["changed"] and len(outputs[0]) == len(outputs[1]):
        for (name, a), (_name, b) in zip(outputs[0], outputs[1]):
            if _out_of_order(a, b, perm, batch):
                result["first_module"] = name
                break
    return result


def _out_of_order(a: Any, b: Any, perm: Any, batch: int) -> bool:
    """No axis of the batch's size along which ``b`` is ``a`` reordered: a module's own layout (sequence-first
    layers, heads folded into the batch axis) need not be the model's."""
    dims = [d for d, size in enumerate(a.shape) if size == batch]
    return bool(dims) and all(_mismatch(a, b, perm, d) > RELATIVE_TOLERANCE for d in dims)


def _first_along(obj: Any, batch: int, dim: int) -> Any:
    import torch

    if hasattr(obj, "logits") and not isinstance(obj, torch.Tensor):
        obj = obj.logits
    for t in flat_tensors(obj):
        if t.dim() > dim and t.shape[dim] == batch:
            return t
    for t in flat_tensors(obj):
        if t.dim() > 0 and t.shape[0] == batch:
            return t
    return None

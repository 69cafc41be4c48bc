"""Measurements on tensors and models shared by ``trace`` and ``diagnose`` (child side).

Stdlib + torch only. Every function returns plain JSON-ready numbers; the
parent (``mlsleuth.runtime``) decides what they mean.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any

ACTIVATION_KINDS = {"ReLU": "relu", "ReLU6": "relu", "Tanh": "tanh", "Sigmoid": "sigmoid", "Hardtanh": "tanh"}


def tensor_stats(x: Any) -> dict[str, Any]:
    """Range, mean/std, non-finite counts, integrality and constant features of a batch tensor."""
    import torch

    info: dict[str, Any] = {"shape": list(x.shape), "dtype": str(x.dtype).replace("torch.", "")}
    if x.numel() == 0:
        return info
    if not (x.is_floating_point() or x.is_complex()):
        xi = x.detach()
        info.update({"min": int(xi.min()), "max": int(xi.max()), "integer": True})
        return info
    xf = x.detach().float()
    finite = torch.isfinite(xf)
    info["nan"] = int(torch.isnan(xf).sum())
    info["inf"] = int((~finite).sum()) - info["nan"]
    vals = xf[finite]
    if vals.numel() == 0:
        return info
    info.update({
        "min": float(vals.min()), "max": float(vals.max()),
        "mean": float(vals.mean()), "std": float(vals.std()) if vals.numel() > 1 else 0.0,
        "integral": bool(torch.equal(vals, vals.round())),
    })
    if xf.dim() == 2 and xf.shape[0] >= 8 and info["nan"] == 0 and info["inf"] == 0:
        const = (xf.std(dim=0) == 0)
        info["features"] = int(xf.shape[1])
        info["constant_features"] = int(const.sum())
    return info


def trailing_padding(tokens: Any) -> dict[str, Any] | None:
    """For a (batch, length) integer batch: the id that most rows end with, and how much of the batch is a
    trailing run of it (right padding), or None for fewer than 4 positions."""
    import torch

    t = tokens.detach()
    if t.dim() != 2 or t.shape[1] < 4 or not t.numel():
        return None
    last = t[:, -1]
    pad = int(torch.mode(last).values)
    same = (t == pad).flip(1).int()
    run = same.cumprod(1).sum(1)  # length of the trailing run of `pad` in each row
    return {"id": pad, "fraction": float(run.sum()) / t.numel(), "rows_padded": float((run > 0).float().mean())}


def first_tensor(obj: Any, batch: int | None = None) -> Any:
    """The first tensor in a (nested) output, optionally with leading dim ``batch``."""
    import torch

    if isinstance(obj, torch.Tensor):
        return obj if (batch is None or (obj.dim() > 0 and obj.shape[0] == batch)) else None
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, (tuple, list)):
        for item in obj:
            found = first_tensor(item, batch)
            if found is not None:
                return found
    if hasattr(obj, "logits"):  # HF-style output objects
        return first_tensor(obj.logits, batch)
    return None


def _along(obj: Any, batch: int, dim: int) -> Any:
    """The first tensor in a (nested) output whose dimension ``dim`` has size ``batch``."""
    import torch

    if dim == 0:
        return first_tensor(obj, batch)
    for t in flat_tensors(obj.logits if hasattr(obj, "logits") and not isinstance(obj, torch.Tensor) else obj):
        if t.dim() > dim and t.shape[dim] == batch:
            return t
    return None


def batch_tensors(module: Any, out: Any, batch: int, batch_dim: int) -> list:
    """The tensors of a module's output that carry the batch, each with the dimension that holds it.

    A layer that declares its layout (``batch_first`` on RNNs, attention and Transformer layers) is read in that
    layout, so a sequence-first layer inside a batch-first model is localised too (its ``(T, B, E)`` output and its
    ``(layers, B, H)`` hidden state); any other module in the layout of the model's own input.
    """
    declared = getattr(module, "batch_first", None)
    dim = (0 if declared else 1) if isinstance(declared, bool) else batch_dim
    if hasattr(out, "logits") and not isinstance(out, (tuple, list, dict)):
        out = out.logits
    return [(t, dim) for t in flat_tensors(out) if t.dim() > dim and t.shape[dim] == batch]


def _module_leaks(trail: list, grads: Any, leak_of: Any) -> list:
    """``[(module name, leaks)]`` in call order, one entry per module call whose output reached the probed output.

    A module leaks when the probed sample's output depends on other samples through any of its output tensors;
    a call none of whose tensors the output depends on says nothing and is left out.
    """
    out: list = []
    previous = None
    for (name, t, dim), g in zip(trail, grads):
        if g is None:
            previous = None
            continue
        leaky = leak_of(g, dim)[0] > 0
        if previous is not None and previous[0] == name and out:  # another tensor of the same call's output
            out[-1] = (name, out[-1][1] or leaky)
        else:
            out.append((name, leaky))
        previous = (name, t)
    return out


def flat_tensors(obj: Any) -> list:
    import torch

    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, (tuple, list)):
        return [t for item in obj for t in flat_tensors(item)]
    return []


@contextlib.contextmanager
def preserved_rng(devices: bool = True):
    """Restore torch's CPU (and CUDA) RNG state afterwards, so an extra pass does not perturb the user's run."""
    import torch

    cpu = torch.get_rng_state()
    cuda = torch.cuda.get_rng_state_all() if devices and torch.cuda.is_available() and torch.cuda.is_initialized() else None
    try:
        yield
    finally:
        torch.set_rng_state(cpu)
        if cuda is not None:
            torch.cuda.set_rng_state_all(cuda)


@contextlib.contextmanager
def eval_mode(model: Any):
    """All submodules in eval mode without calling ``train()`` (which observers watch); restored afterwards."""
    saved = [(m, m.training) for m in model.modules()]
    for m, _ in saved:
        m.training = False
    try:
        yield
    finally:
        for m, flag in saved:
            m.training = flag


def outputs_equal(a: Any, b: Any) -> tuple[bool, float]:
    """Whether two forward outputs are identical, and the largest absolute difference."""
    import torch

    ta, tb = flat_tensors(a), flat_tensors(b)
    if len(ta) != len(tb):
        return False, math.inf
    worst = 0.0
    for x, y in zip(ta, tb):
        if x.shape != y.shape:
            return False, math.inf
        if x.is_floating_point():
            diff = (x.detach().float() - y.detach().float()).abs()
            diff = torch.nan_to_num(diff, nan=0.0)
            if diff.numel():
                worst = max(worst, float(diff.max()))
        elif not torch.equal(x, y):
            worst = max(worst, 1.0)
    return worst == 0.0, worst


def batch_dependence(model: Any, inputs: tuple, kwargs: dict | None = None, sample: int | None = None, batch_dim: int = 0) -> dict[str, Any]:
    """Backprop from output[sample] to every input sample (model in eval mode).

    ``batch_dim``: the dimension of the model's first input (and of its output, where that dimension has the
    batch's size; else the output's first) that holds the batch: 0 for batch-first models, 1 for models that
    take sequence-first input. What the model does inside (transposes to a sequence-first layer and back) does
    not matter: only its own input and output are perturbed and read.

    ``sample``: the output row backpropagated; by default the middle one (a layer that runs along the batch as if it
    were time, e.g. a sequence-first RNN fed batch-first data, makes the first row depend on no other sample and
    the last on all; the middle row sees the earlier and the later ones).

    Returns ``{"batch": B, "leak": max |d out[sample] / d x[j]| over j != sample,
    "self": max over j == sample, "mixing_after": module name or None,
    "mixing_before": module name or None}``; or ``{"skipped": reason}``.
    Intermediate module outputs with leading dim B are used to localise where
    samples first mix: the leak exists before the mixing point and vanishes after it.
    """
    import torch

    kwargs = kwargs or {}
    tensors = [t for t in inputs if isinstance(t, torch.Tensor)]
    if not tensors or tensors[0].dim() < 1:
        return {"skipped": "the model's first input is not a tensor with a batch dimension"}
    x0 = tensors[0]
    if x0.dim() <= batch_dim:
        return {"skipped": f"the model's first input has no dimension {batch_dim} to hold the batch"}
    batch = int(x0.shape[batch_dim])
    if batch < 2:
        return {"skipped": "batch of one sample"}
    if sample is None:
        sample = batch // 2
    embedding = None
    if not x0.is_floating_point():  # token ids: differentiate through the first embedding's output instead
        embedding = next((m for m in model.modules() if isinstance(m, torch.nn.Embedding)), None)
        if embedding is None:
            return {"skipped": "integer inputs and no nn.Embedding to differentiate through"}
    names = {id(m): n for n, m in model.named_modules()}
    trail: list[tuple[str, Any, int]] = []  # (module name, an output tensor, the dimension holding its batch)

    def keep(mod, _inp, out):
        if mod is model:
            return
        for t, dim in batch_tensors(mod, out, batch, batch_dim):
            if t.requires_grad:
                trail.append((names.get(id(mod), type(mod).__name__), t, dim))

    handles = [m.register_forward_hook(keep) for m in model.modules() if m is not model]
    try:
        with preserved_rng(), eval_mode(model), torch.enable_grad():
            if embedding is None:
                x = x0.detach().clone().requires_grad_(True)
                args = [x.clone() if t is x0 else t for t in inputs]  # a non-leaf: a model may write its input in place
            else:
                args = list(inputs)
            result = model(*args, **kwargs)
            out = _along(result, batch, batch_dim)
            out_dim = batch_dim
            if out is None and batch_dim:
                out, out_dim = first_tensor(result, batch), 0
            if embedding is not None:
                x = next((t for n, t, _d in trail if n == names.get(id(embedding))), None)
                if x is None:
                    return {"skipped": "the embedding's output has no batch dimension"}
            if out is None or not out.requires_grad:
                return {"skipped": "no output tensor with the batch as its first dimension depends on the input"}
            targets = [x] + [t for _, t, _d in trail]
            grads = torch.autograd.grad(out.select(out_dim, sample).float().sum(), targets, allow_unused=True)
    finally:
        for h in handles:
            h.remove()

    def leak_of(g: Any, dim: int = batch_dim) -> tuple[float, float]:
        if g is None:
            return 0.0, 0.0
        g = g.detach().float().abs()
        if g.dim() <= dim or g.shape[dim] != batch:
            return 0.0, 0.0
        g = g.movedim(dim, 0).reshape(batch, -1)
        own = float(g[sample].max())
        others = torch.cat([g[:sample], g[sample + 1:]])
        return float(others.max()), own

    leak, own = leak_of(grads[0])
    result: dict[str, Any] = {"batch": batch, "leak": leak, "self": own, "sample": sample, "batch_dim": batch_dim}
    if leak > 0:
        last_leaky, first_clean = None, None
        for name, leaky in _module_leaks(trail, grads[1:], leak_of):
            if leaky:
                last_leaky, first_clean = name, None
            elif first_clean is None:
                first_clean = name
        result["mixing_after"] = last_leaky
        result["mixing_before"] = first_clean
    return result


INPUT_KEYS = ("input_ids", "pixel_values", "inputs", "input", "x", "features", "src", "images", "image", "data")
NOT_INPUT_KEYS = ("labels", "label", "targets", "target", "y", "attention_mask", "mask", "token_type_ids", "position_ids",
                  "decoder_input_ids", "decoder_attention_mask", "head_mask", "lengths")


def model_input(args: tuple, kwargs: dict) -> Any:
    """The tensor a model call feeds as its main input, or None.

    The first positional argument when it is a tensor; else, from the keyword inputs (``model(input_ids=...)``,
    ``model(**batch)``) or a dict passed as the only argument (``model(batch)``), the first tensor under a
    usual input name, then the first tensor that is not a label, mask or position input.
    """
    import torch

    if args and isinstance(args[0], torch.Tensor):
        return args[0]
    named = args[0] if len(args) == 1 and isinstance(args[0], dict) else (kwargs if not args else {})
    for key in INPUT_KEYS:
        if isinstance(named.get(key), torch.Tensor):
            return named[key]
    return next((v for k, v in named.items() if isinstance(v, torch.Tensor) and k not in NOT_INPUT_KEYS), None)


def keyword_call(model: Any, args: tuple, kwargs: dict) -> Any:
    """A module taking the model's main input positionally (``wrapper(x)``) for a model called with keyword inputs or
    a lone dict, so that probes perturbing the first positional input work on it; None when there is no main input.

    The model is the wrapper's child ``wrapped``: module names a probe reports start with ``wrapped.``.
    """
    import torch

    x = model_input(args, kwargs)
    if x is None or (args and x is args[0]):
        return None
    as_dict = bool(args)
    named = dict(args[0] if as_dict else kwargs)
    key = next(k for k, v in named.items() if v is x)
    rest = {k: (v.detach() if isinstance(v, torch.Tensor) else v) for k, v in named.items() if k != key}

    class KeywordCall(torch.nn.Module):
        keyword_call = True

        def __init__(self) -> None:
            super().__init__()
            self.wrapped = model

        def forward(self, inp: Any) -> Any:
            call = {**rest, key: inp}
            return self.wrapped(call) if as_dict else self.wrapped(**call)

    return KeywordCall(), x.detach()


def unwrapped_call(module: Any) -> Any:
    """The model inside a :func:`keyword_call` wrapper, else ``module`` itself."""
    return module.wrapped if type(module).__name__ == "KeywordCall" and getattr(module, "keyword_call", False) else module

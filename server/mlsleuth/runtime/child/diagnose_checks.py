"""The ``diagnose`` battery (child side): measurements on a model the user hands over.

Stdlib + torch only. Each function returns JSON-ready measurements; the parent
(``mlsleuth.runtime.diagnose_findings``) turns them into findings.
"""

from __future__ import annotations

import math
from typing import Any

import probes
from setup_contract import with_first_tensor

MAX_REPORTED = 20


def weight_statistics(model: Any) -> list[dict]:
    """Weight matrices that are all zero or whose rows are identical (symmetric) at initialisation."""
    out = []
    for name, p in model.named_parameters():
        if p.dim() < 2 or p.shape[0] < 2 or not p.requires_grad:
            continue
        w = p.detach().float().reshape(p.shape[0], -1)
        scale = float(w.abs().max())
        spread = float((w - w[:1]).abs().max())
        if scale == 0.0 or spread <= 1e-7 * scale:
            module = name.rsplit(".", 1)[0] if "." in name else ""
            out.append({"name": name, "module": module, "rows": int(p.shape[0]), "all_zero": scale == 0.0, "max_abs": scale,
                        "last_layer": False})
    # a zero-initialised *final* layer is a legitimate trick (rows diverge after one step): mark it
    weights = [n for n, p in model.named_parameters() if p.dim() >= 2 and p.requires_grad]
    if weights:
        for rec in out:
            rec["last_layer"] = rec["name"] == weights[-1]
    return out[:MAX_REPORTED]


def unregistered_submodules(model: Any) -> list[dict]:
    """Modules/parameters kept in plain lists, tuples, dicts or as tensors with requires_grad that nn.Module does not see."""
    import torch

    registered = {id(p) for p in model.parameters()}
    found = []
    for mname, module in model.named_modules():
        for attr, value in vars(module).items():
            if attr.startswith("_"):
                continue
            items = list(value.values()) if isinstance(value, dict) else list(value) if isinstance(value, (list, tuple)) else [value]
            hidden_modules = [v for v in items if isinstance(v, torch.nn.Module)]
            hidden_params = [v for v in items if isinstance(v, torch.Tensor) and v.requires_grad and id(v) not in registered]
            count = sum(1 for m in hidden_modules for p in m.parameters() if id(p) not in registered)
            count += sum(v.numel() > 0 for v in hidden_params)
            if count and (hidden_modules or hidden_params):
                found.append({"module": mname, "attribute": attr, "container": type(value).__name__,
                              "unregistered_parameters": int(count),
                              "numel": int(sum(p.numel() for m in hidden_modules for p in m.parameters() if id(p) not in registered)
                                           + sum(v.numel() for v in hidden_params))})
    return found[:MAX_REPORTED]


def causal_leakage(model: Any, inputs: Any, time_dim: int, forward) -> dict:
    """Does output at time t depend on inputs after t? Gradient of out[:, t] w.r.t. the (embedded) input.

    Module outputs along the way are read the same way to say where the future gets in: ``leak_after`` is the
    last module whose later positions still reach ``out[:, t]`` and ``leak_before`` the first after it whose later
    positions no longer do (for a missing mask, the last attention layer that looks ahead). A layer that declares
    its layout (``batch_first``) is read in it; other modules in the layout of the model's input.
    """
    import torch

    x0 = probes.first_tensor(inputs)
    if not isinstance(x0, torch.Tensor) or x0.dim() <= time_dim:
        return {"skipped": f"the first input has no dimension {time_dim} to treat as time"}
    steps = int(x0.shape[time_dim])
    if steps < 3:
        return {"skipped": "fewer than 3 time steps"}
    captured: dict[str, Any] = {}
    names = {id(m): n for n, m in model.named_modules()}
    trail: list[tuple[str, Any, int]] = []
    emb = None
    if not x0.is_floating_point():
        emb = next((m for m in model.modules() if isinstance(m, torch.nn.Embedding)), None)
        if emb is None:
            return {"skipped": "integer inputs and no nn.Embedding to differentiate through"}

    def keep(mod, _inp, out):
        if mod is emb and "emb" not in captured:
            captured["emb"] = out
        declared = getattr(mod, "batch_first", None)
        dim = (1 if declared else 0) if isinstance(declared, bool) and time_dim in (0, 1) else time_dim
        for t in probes.flat_tensors(out):
            if t.requires_grad and t.dim() > dim and t.shape[dim] == steps:
                trail.append((names.get(id(mod), type(mod).__name__), t, dim))

    handles = [m.register_forward_hook(keep) for m in model.modules() if m is not model]
    if x0.is_floating_point():
        x = x0.detach().clone().requires_grad_(True)
        args = with_first_tensor(inputs, x)
        target_of = lambda: x
    else:
        args = inputs
        target_of = lambda: captured.get("emb")
    try:
        with probes.preserved_rng(), probes.eval_mode(model), torch.enable_grad():
            out = probes.first_tensor(forward(model, args))
            source = target_of()
            if out is None or source is None or out.dim() <= time_dim or out.shape[time_dim] != steps:
                return {"skipped": "the output has no time dimension matching the input's"}
            if source.dim() <= time_dim or source.shape[time_dim] != steps:
                return {"skipped": "the differentiable input has no matching time dimension"}
            t = steps // 2
            trail = [entry for entry in trail if entry[1] is not source]
            grads = torch.autograd.grad(out.select(time_dim, t).float().sum(), [source] + [e[1] for e in trail],
                                        allow_unused=True)
    finally:
        for handle in handles:
            handle.remove()
    grad = grads[0]
    if grad is None:
        return {"skipped": "the output does not depend on the input"}

    def per_step(g: Any, dim: int) -> Any:
        return g.detach().float().abs().transpose(0, dim).reshape(steps, -1).amax(1)

    g = per_step(grad, time_dim)
    future = float(g[t + 1:].max())
    past = float(g[: t + 1].max())
    first_future = next((i for i in range(t + 1, steps) if float(g[i]) > 0), None)
    result = {"time_steps": steps, "t": t, "future_grad": future, "past_grad": past, "first_leaking_step": first_future,
              "via": "input" if x0.is_floating_point() else "embedding output"}
    if future > 0:
        last_leaky, first_clean = None, None
        for (name, _tensor, dim), gm in zip(trail, grads[1:]):
            if gm is None:
                continue
            if float(per_step(gm, dim)[t + 1:].max()) > 0:
                last_leaky, first_clean = name, None
            elif first_clean is None:
                first_clean = name
        result["leak_after"], result["leak_before"] = last_leaky, first_clean
    return result


def lr_range(setup: Any, model: Any, init_state: dict, batches: list, *, start: float = 1e-7, end: float = 10.0, steps: int = 100) -> dict:
    """Exponentially increasing LR, EMA-smoothed loss; stops when the loss exceeds 4x its best."""

    model.load_state_dict(init_state)
    model.train()
    opt = setup.make_optimizer(model.parameters())
    factor = (end / start) ** (1 / max(steps - 1, 1))
    lrs, losses = [], []
    smooth, best, beta = None, math.inf, 0.9
    for i in range(steps):
        lr = start * factor ** i
        for g in opt.param_groups:
            g["lr"] = lr
        loss, _ = setup.loss(model, batches[i % len(batches)])
        value = float(loss.detach())
        if not math.isfinite(value):
            break
        opt.zero_grad()
        loss.backward()
        opt.step()
        smooth = beta * (smooth or 0.0) + (1 - beta) * value
        corrected = smooth / (1 - beta ** (i + 1))  # bias correction of the zero-started average
        lrs.append(lr)
        losses.append(corrected)
        best = min(best, corrected)
        if corrected > 4 * best and i > 10:
            break
    model.load_state_dict(init_state)
    if len(losses) < 10:
        return {"skipped": "the loss diverged almost immediately", "lrs": lrs, "losses": losses}
    # steepest descent of the smoothed loss against log(lr), before the minimum
    low = min(range(len(losses)), key=losses.__getitem__)
    slopes = [(losses[i + 1] - losses[i - 1]) / (math.log(lrs[i + 1]) - math.log(lrs[i - 1])) for i in range(1, max(low, 2))]
    steep = 1 + min(range(len(slopes)), key=slopes.__getitem__) if slopes else 0
    return {"lrs": lrs, "losses": losses, "min_loss_lr": lrs[low], "steepest_lr": lrs[steep], "suggested_lr": min(lrs[steep], lrs[low] / 10)}

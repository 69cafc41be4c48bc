"""Where a non-finite training loss was born: the model's last training forward run again, each module watched
(child side, stdlib + torch only).

When the loss passed to backward is NaN or Inf, the trace stops. Before it does, the last training forward of each
model is repeated on the same inputs, with gradients off and the RNG state restored afterwards, and every module's
output is checked as it returns: the first module (in the order modules finish, so the innermost) whose output holds
a NaN or Inf while every tensor it was given is finite is where the value was born. Every ATen operation of that
repeat passes through a dispatch mode too: the first one to output a NaN from inputs that held none (finite values,
or an Inf such as a mask's deliberate -inf) is recorded with the user's line that ran it; else the first one to
turn finite inputs into an Inf. When every model output is finite,
the loss computation itself produced it. Runs at most once, after the run has already failed.
"""

from __future__ import annotations

from typing import Any

from nan_ops import user_frame
from probes import flat_tensors, preserved_rng

MAX_ROOTS = 3


def _finite(tensors: list) -> bool:
    import torch

    return all(bool(torch.isfinite(t).all()) for t in tensors if t.is_floating_point() or t.is_complex())


def _owner_at(path: str | None) -> Any:
    """The ``nn.Module`` whose method runs the innermost frame of ``path`` on the stack (``self`` there), or None."""
    import os
    import sys

    import torch

    frame = sys._getframe(2)
    while frame is not None and path:
        if os.path.abspath(frame.f_code.co_filename) == path:
            owner = frame.f_locals.get("self") if "self" in frame.f_code.co_varnames else None
            return owner if isinstance(owner, torch.nn.Module) else None
        frame = frame.f_back
    return None


def _op_births():
    """A dispatch mode recording the first operation that makes a NaN (and an Inf) out of finite inputs."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_leaves

    def floats(obj):
        return [t for t in tree_leaves(obj) if isinstance(t, torch.Tensor) and t.is_floating_point() and t.numel()]

    class Births(TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            self.nan: dict | None = None
            self.inf: dict | None = None

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            if self.nan is None:
                outs = floats(out)
                if outs and not _finite(outs):
                    ins = floats((args, kwargs))
                    nan_out = any(bool(torch.isnan(t).any()) for t in outs)
                    if nan_out and not any(bool(torch.isnan(t).any()) for t in ins):
                        self.nan = self._record(func)  # the first NaN (from finite values, or from an Inf)
                    elif self.inf is None and _finite(ins):
                        self.inf = self._record(func)  # the first Inf from finite values
            return out

        @staticmethod
        def _record(func) -> dict:
            site = user_frame() or {}
            return {"op": getattr(func, "__name__", str(func)).split(".")[0].lstrip("_"), "path": site.get("file"),
                    "line": site.get("line"), "code": site.get("code"), "owner": _owner_at(site.get("file"))}

    return Births()


def locate(runner: Any, forwards: list[tuple]) -> dict:
    """``forwards``: ``(root, inputs, kwargs)`` of the last training forward of each model, latest last."""
    import torch

    from run_user_script import unwrap

    tried = []
    for root, inputs, kwargs in reversed(forwards[-MAX_ROOTS:]):
        born: list[dict] = []

        def watch(module, args, output, _born=born):
            if _born:
                return
            outs = flat_tensors(output)
            if outs and not _finite(outs) and _finite(flat_tensors(args)):
                _born.append({"module": runner.module_name(module) or runner.root_label(root), "type": type(module).__name__})

        model = unwrap(root)
        handles = [m.register_forward_hook(watch) for m in model.modules()]
        births = _op_births()
        try:
            with runner.suspended(), preserved_rng(), torch.no_grad(), births:
                output = root(*inputs, **kwargs)
        except Exception as exc:  # noqa: BLE001 - the repeat is a probe: its failure only means "not located"
            tried.append({"root": runner.root_label(root), "skipped": f"{type(exc).__name__}: {str(exc)[:120]}"})
            continue
        finally:
            for h in handles:
                h.remove()
        inputs_finite = _finite(flat_tensors((inputs, kwargs)))
        op = births.nan or births.inf
        if op:
            owner = op.pop("owner", None)
            name = runner.module_name(owner) if owner is not None else ""
            if name and name != type(owner).__name__:  # the submodule whose own method made it (not the root)
                op["module"] = name
        if born:
            return {"root": runner.root_label(root), **born[0], "inputs_finite": inputs_finite, **({"birth": op} if op else {})}
        outs = flat_tensors(output)
        tried.append({"root": runner.root_label(root), "output_finite": bool(outs) and _finite(outs), "inputs_finite": inputs_finite})
    return {"located": None, "tried": tried}

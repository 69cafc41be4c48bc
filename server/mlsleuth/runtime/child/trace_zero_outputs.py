"""Modules whose output is all exact zeros at train time although their input is not (child side; stdlib + torch).

On the first ``STEPS`` optimizer steps, for each module called in training mode with gradients on: does its first
floating output (which carries gradient) hold only exact zeros while its first floating input holds a non-zero
value? A module that does so on every such call over at least two steps erases its input: a dropout whose rate is
1, a gate or scale stuck at zero, an all-zero mask, a layer whose weights are zero and never move. Activation
functions (a dead ReLU layer) are left to the activation checks.
"""

from __future__ import annotations

from typing import Any

STEPS = 3
MIN_NUMEL = 4
MAX_MODULES = 5000
SKIPPED_TYPES = frozenset({"ReLU", "ReLU6", "Tanh", "Sigmoid", "Hardtanh", "Threshold", "Identity"})


def _first_float(values: Any) -> Any:
    import torch

    for v in values:
        if isinstance(v, torch.Tensor) and v.is_floating_point() and v.numel():
            return v
        if isinstance(v, (list, tuple)) and v and isinstance(v[0], torch.Tensor) and v[0].is_floating_point() and v[0].numel():
            return v[0]
    return None


class ZeroOutputWatch:
    def __init__(self) -> None:
        self.modules: dict[str, dict] = {}

    def on_forward(self, runner: Any, module: Any, inputs: tuple, kwargs: dict, output: Any) -> None:
        import torch

        if runner.step >= STEPS or not module.training or not torch.is_grad_enabled():
            return
        if type(module).__name__ in SKIPPED_TYPES:
            return
        out = _first_float((output,) if isinstance(output, torch.Tensor) else output if isinstance(output, (list, tuple)) else ())
        if out is None or out.numel() < MIN_NUMEL or not out.requires_grad:
            return
        x = _first_float((*inputs, *(kwargs or {}).values()))
        if x is None:
            return
        is_root = any(m is module for m in runner.roots)
        name = runner.root_label(module) if is_root else runner.module_name(module)
        if not is_root and name == type(module).__name__:
            return  # a module outside every traced model: no stable name to report
        rec = self.modules.get(name)
        if rec is None:
            if len(self.modules) >= MAX_MODULES:
                return
            rec = self.modules[name] = {"type": type(module).__name__, "calls": 0, "zero_calls": 0, "steps": [],
                                        "shape": list(out.shape), "root": is_root}
        if rec["calls"] > rec["zero_calls"] or not bool(x.detach().any()):
            return  # already seen a non-zero output (settled), or nothing to erase
        rec["calls"] += 1
        if bool(out.detach().any()):
            return
        rec["zero_calls"] += 1
        if runner.step not in rec["steps"]:
            rec["steps"].append(runner.step)
        if isinstance(module, torch.nn.modules.dropout._DropoutNd) or type(module).__name__.endswith("Dropout"):
            rec["p"] = float(getattr(module, "p", float("nan")))

    def result(self) -> list[dict]:
        flagged = {n: r for n, r in self.modules.items()
                   if r["calls"] and r["zero_calls"] == r["calls"] and len(r["steps"]) >= 2}
        # a container whose output is zero because a module inside it erases is explained by that module
        inner = [n for n in flagged if not any(o != n and o.startswith(n + ".") for o in flagged)
                 and not (flagged[n]["root"] and len(flagged) > 1)]
        return [{"module": n, **{k: v for k, v in flagged[n].items() if k != "root"}} for n in inner[:10]]

"""Modules that overwrite a tensor they were given, which their caller reads again afterwards (child side).

Stdlib + torch only. During step 0's first training forward (:mod:`trace_first_ops`'s window) every torch call
that moves a tensor's ``_version`` marks that tensor's storage as written, with the call's sequence number. When a
module returns, each tensor it received (positionally or by keyword) whose storage was written since the module
was entered was overwritten by that module's forward. When the module returned something else (no output shares
the storage: not ``nn.ReLU(inplace=True)`` handing back the very tensor it rectified) and the tensor carries
gradient or is the model's own input, the storage becomes a *candidate*; a later call that reads it (any call but
metadata queries and pure overwrites such as ``copy_``) sees the overwritten values where the caller meant the
originals: a residual or skip connection, a target, a cached value. Parameters and buffers are never candidates
(a module updating its own state in place is by design).
"""

from __future__ import annotations

from typing import Any

from trace_first_ops import NOT_READS, storage_key, tensors_in, user_site

OVERWRITES = frozenset({"copy_", "zero_", "fill_", "set_", "__setitem__", "normal_", "uniform_", "random_"})
MAX_CANDIDATES = 200
MAX_REPORTED = 10


def _outputs(output: Any) -> list:
    import torch

    if isinstance(output, torch.Tensor):
        return [output]
    if isinstance(output, (list, tuple)):
        return [o for o in output[:64] if isinstance(o, torch.Tensor)]
    if isinstance(output, dict):
        return [o for o in list(output.values())[:64] if isinstance(o, torch.Tensor)]
    return []


class InplaceInputWatch:
    def __init__(self) -> None:
        self.seq = 0
        self._written: dict[int, int] = {}  # storage -> sequence number of its last in-place write
        self._starts: list[tuple[Any, int]] = []  # (module, sequence number at its entry), innermost last
        self._state_keys: set[int] = set()  # storages of the models' parameters and buffers
        self._root_inputs: set[int] = set()  # storages of the tensors handed to a root model
        self._candidates: dict[int, dict] = {}
        self._hold: list = []  # the candidate tensors, alive until the window ends (storages are not reused)
        self.found: list[dict] = []

    # -- the window ---------------------------------------------------------------------------
    def begin(self, runner: Any, root: Any, inputs: tuple) -> None:
        for r in runner.roots:
            for t in (*r.parameters(), *r.buffers()):
                key = storage_key(t)
                if key is not None:
                    self._state_keys.add(key)
        self.root_inputs(inputs)

    def root_inputs(self, inputs: tuple) -> None:
        for t in tensors_in(inputs, None):
            key = storage_key(t)
            if key is not None:
                self._root_inputs.add(key)

    def enter(self, module: Any) -> None:
        self._starts.append((module, self.seq))

    def on_op(self, name: str, tensors: list, written: list, runner: Any) -> None:
        self.seq += 1
        written_ids = {id(t) for t in written}
        for t in written:
            key = storage_key(t)
            if key is not None:
                self._written[key] = self.seq
        if not self._candidates or name in NOT_READS:
            return
        for t in tensors:
            key = storage_key(t)
            cand = self._candidates.get(key) if key is not None else None
            if cand is None or cand.get("read"):
                continue
            if id(t) in written_ids and name in OVERWRITES:
                self._candidates.pop(key)  # replaced wholesale before anyone read it: nothing stale is read
                continue
            path, line = user_site()
            stack = runner.module_stack
            cand["read"] = {"op": name, "path": path, "line": line,
                            "module": runner.module_name(stack[-1]) if stack else None}

    def leave(self, runner: Any, module: Any, inputs: tuple, kwargs: dict, output: Any) -> None:
        """``module`` returned: did its forward overwrite a tensor it was given, and hand back something else?"""
        start = None
        while self._starts:
            mod, seq = self._starts.pop()
            if mod is module:
                start = seq
                break
        if start is None or len(self._candidates) >= MAX_CANDIDATES:
            return
        given = tensors_in(inputs, kwargs)
        if not given:
            return
        out_keys = {storage_key(o) for o in _outputs(output)}
        if not out_keys - {None}:
            return  # returns no tensor: overwriting its argument is what the module is for
        import torch

        for t in given:
            key = storage_key(t)
            if key is None or self._written.get(key, -1) <= start or key in out_keys or key in self._candidates:
                continue
            if key in self._state_keys or isinstance(t, torch.nn.Parameter):
                continue
            if not (t.requires_grad or key in self._root_inputs):
                continue  # a cache or state tensor updated in place by design
            stack = runner.module_stack
            self._candidates[key] = {
                "module": runner.module_name(module), "type": type(module).__name__,
                "caller": (runner.module_name(stack[-1]) or runner.root_label(stack[-1])) if stack else None,
                "shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""), "requires_grad": bool(t.requires_grad),
                "model_input": key in self._root_inputs, "step": runner.step, "order": len(self._candidates),
            }
            self._hold.append(t)

    def end(self) -> None:
        """The window closed: keep the candidates that were read again, innermost module first."""
        read = sorted((c for c in self._candidates.values() if c.get("read")), key=lambda c: c["order"])
        self.found = read[:MAX_REPORTED]
        self.count = len(read)
        self._candidates.clear()
        self._hold.clear()
        self._written.clear()

    def result(self) -> dict:
        return {"overwritten_inputs": self.found, "count": getattr(self, "count", 0)}

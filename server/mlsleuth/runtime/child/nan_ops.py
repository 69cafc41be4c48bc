"""Operation-level localisation of the first non-finite value (runs in the child).

:class:`OpLocator` is a ``TorchDispatchMode``: while it is active every ATen
operation - forward, backward (the autograd engine runs backward formulas
through the same dispatcher) and optimizer updates - passes through it. For
each operation it checks whether the floating-point inputs were finite and
whether the outputs are. An operation whose inputs were all finite but whose
output is not is a *birth*; the locator records the op, the pass it ran in, the
module it ran inside (forward: the innermost module on the module stack;
backward: the module whose forward created the autograd node now running),
statistics of every input and of the output.

Non-finite values then spread: every non-finite output inherits the *origin*
of the first non-finite input it was computed from. So when the loss, a
gradient or a parameter turns out non-finite, :meth:`OpLocator.origin_of`
names the birth that actually caused it - not merely the first birth in time,
which may be a deliberately masked ``-inf`` or the unused branch of a
``torch.where``. A non-finite input that no watched operation produced (a
corrupt batch, a parameter already broken) is recorded as an *external*
origin.

This is far too slow for every step of a long run; the cheap watcher
(``nan_watch``) arms it only to replay the failing step.

Standard library and torch only (see ``runtime/child/__init__``).
"""

from __future__ import annotations

import linecache
import math
import os
import sys
import sysconfig
from collections.abc import Callable
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves
from torch.utils.weak import WeakIdKeyDictionary

NODE_MODULE_KEY = "mlsleuth_module"
MAX_ORIGINS = 32
MAX_STATS_INPUTS = 6
MAX_CONSUMERS = 8  # operations recorded downstream of a birth (what the born value fed)

# Operations whose output holds uninitialised memory: garbage, not a birth.
_UNINITIALISED = {"aten::empty", "aten::empty_like", "aten::empty_strided", "aten::new_empty", "aten::new_empty_strided", "aten::resize_"}
# Frames that are not the user's code: torch, mlsleuth's child, the standard library, installed packages.
_NOT_USER = tuple(os.path.dirname(p) + os.sep for p in (torch.__file__, os.path.abspath(__file__)))
_NOT_USER += tuple(d + os.sep for d in {sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")} if d)
_FLOAT_KINDS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def _is_float(t: Any) -> bool:
    return isinstance(t, torch.Tensor) and (t.is_floating_point() or t.is_complex()) and t.layout == torch.strided and t.device.type != "meta"


def _all_finite(t: torch.Tensor) -> bool:
    if t.numel() == 0:
        return True
    return bool(torch.isfinite(t).all())


def user_frame() -> dict[str, Any] | None:
    """The innermost frame of the user's own code on the current stack (file, line, source text), or None.

    Cheap enough for a birth (rare), far too slow for every operation."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        full = os.path.abspath(name)
        if not name.startswith("<") and not full.startswith(_NOT_USER) and not any(
                f"{os.sep}{d}{os.sep}" in full for d in ("site-packages", "dist-packages")):
            line = frame.f_lineno
            return {"file": full, "line": line, "function": frame.f_code.co_name,
                    "code": linecache.getline(name, line).strip()[:200]}
        frame = frame.f_back
    return None


def tensor_stats(t: torch.Tensor) -> dict[str, Any]:
    """Numbers about one tensor: shape, counts of NaN/inf, and over its finite part min/max/|max|, zeros, negatives."""
    with torch.no_grad():
        t = t.detach()
        out: dict[str, Any] = {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""), "numel": t.numel()}
        if not _is_float(t):
            return out
        if t.is_complex():
            t = t.abs()
        f = t.double() if t.dtype != torch.float64 else t
        if f.numel() == 0:
            return out
        nan = torch.isnan(f)
        posinf = torch.isposinf(f)
        neginf = torch.isneginf(f)
        out["nan"] = int(nan.sum())
        out["posinf"] = int(posinf.sum())
        out["neginf"] = int(neginf.sum())
        finite = f[~(nan | posinf | neginf)]
        out["finite"] = int(finite.numel())
        if finite.numel():
            out["min"] = float(finite.min())
            out["max"] = float(finite.max())
            out["max_abs"] = float(finite.abs().max())
            out["zeros"] = int((finite == 0).sum())
            out["negatives"] = int((finite < 0).sum())
            nonzero = finite[finite != 0]
            if nonzero.numel():
                out["min_abs_nonzero"] = float(nonzero.abs().min())
        if t.dtype in _FLOAT_KINDS:
            out["dtype_max"] = float(torch.finfo(t.dtype).max)
        return out


def _argument_names(func: Any, args: tuple, kwargs: dict) -> list[tuple[str, Any]]:
    """``(schema argument name, value)`` for every argument, positional ones named from the schema."""
    try:
        names = [a.name for a in func._schema.arguments]
    except Exception:  # noqa: BLE001 - an op without a schema: positional names fall back to argN
        names = []
    pairs = []
    for i, value in enumerate(args):
        pairs.append((names[i] if i < len(names) else f"arg{i}", value))
    pairs.extend(kwargs.items())
    return pairs


def op_name(func: Any) -> str:
    try:
        return func._schema.name  # 'aten::div'
    except Exception:  # noqa: BLE001 - an op without a schema is named by str()
        return str(func)


class ModuleStack:
    """Forward pre/post hooks on every module: which module is running, and which autograd nodes it made.

    After a module's forward, the autograd nodes reachable from its outputs that
    no inner module already claimed (and that were not already there on its
    inputs) get the module's name in ``node.metadata``; the backward pass reads
    it back to say which module a backward formula belongs to.
    """

    def __init__(self, name_of: Callable[[Any], str]) -> None:
        self.name_of = name_of
        self.stack: list[Any] = []
        self._input_nodes: list[set[int]] = []
        self._handles: list[Any] = []
        self.root_forwards = 0  # outermost module forwards completed while armed

    def install(self) -> None:
        from torch.nn.modules import module as module_mod

        self._handles.append(module_mod.register_module_forward_pre_hook(self._pre))
        try:
            self._handles.append(module_mod.register_module_forward_hook(self._post, always_call=True))
        except TypeError:  # pragma: no cover - older torch
            self._handles.append(module_mod.register_module_forward_hook(self._post))

    def remove(self) -> None:
        for h in self._handles:
            h.remove()
        self._handles.clear()

    def current(self) -> str | None:
        return self.name_of(self.stack[-1]) if self.stack else None

    def _pre(self, module: Any, inputs: Any) -> None:
        self.stack.append(module)
        nodes = set()
        for t in tree_leaves(inputs):
            if isinstance(t, torch.Tensor) and t.grad_fn is not None:
                nodes.add(id(t.grad_fn))
        self._input_nodes.append(nodes)

    def _post(self, module: Any, inputs: Any, output: Any) -> None:
        if module in self.stack:
            idx = len(self.stack) - 1 - self.stack[::-1].index(module)
            stop = self._input_nodes[idx]
            del self.stack[idx:]
            del self._input_nodes[idx:]
        else:
            return
        if not self.stack:
            self.root_forwards += 1
        name = self.name_of(module)
        todo = [t.grad_fn for t in tree_leaves(output) if isinstance(t, torch.Tensor) and t.grad_fn is not None]
        seen: set[int] = set()
        while todo:
            node = todo.pop()
            if node is None or id(node) in seen or id(node) in stop:
                continue
            seen.add(id(node))
            meta = node.metadata
            if NODE_MODULE_KEY in meta:
                continue  # claimed by an inner module; its inputs were claimed before it
            meta[NODE_MODULE_KEY] = name
            todo.extend(nxt for nxt, _ in node.next_functions if nxt is not None)


class OpLocator(TorchDispatchMode):
    """Record where non-finite values are born and how they spread (see module doc).

    ``phase_hint`` is set by the caller to 'data', 'forward', 'optimizer' ... ;
    inside a module the phase is 'forward', inside an autograd node 'backward',
    and outside any module after a model forward in this step it is 'loss'.
    ``param_names`` maps ``id(parameter)`` to its dotted name.
    """

    def __init__(self, name_of: Callable[[Any], str] | None = None, param_names: dict[int, str] | None = None) -> None:
        super().__init__()
        self.modules = ModuleStack(name_of or (lambda m: type(m).__name__))
        self.param_names = dict(param_names or {})
        self.phase_hint = "forward"
        self.step: int | None = None
        self.origins: list[dict[str, Any]] = []
        self.ops_seen = 0
        self.truncated = False
        self._tags: WeakIdKeyDictionary = WeakIdKeyDictionary()
        self._armed = False
        self._candidate_params: dict[int, list[int]] = {}

    def resolve_parameters(self, param_names: dict[int, str]) -> None:
        """Name the parameter an origin touched, for parameters first met after the locator was armed."""
        self.param_names.update(param_names)
        for idx, ids in self._candidate_params.items():
            if idx < len(self.origins) and not self.origins[idx].get("parameter"):
                for i in ids:
                    if i in self.param_names:
                        self.origins[idx]["parameter"] = self.param_names[i]
                        break

    # -- arming ----------------------------------------------------------------
    def arm(self) -> OpLocator:
        if not self._armed:
            self.modules.install()
            self.__enter__()
            self._armed = True
        return self

    def disarm(self) -> None:
        if self._armed:
            self.__exit__(None, None, None)
            self.modules.remove()
            self._armed = False

    # -- questions ---------------------------------------------------------------
    def origin_of(self, tensor: Any) -> dict[str, Any] | None:
        """The origin record behind a non-finite tensor, if the locator saw it being made."""
        if not isinstance(tensor, torch.Tensor):
            return None
        idx = self._tags.get(tensor)
        return self.origins[idx] if idx is not None else None

    def first_birth(self, phases: tuple[str, ...] | None = None) -> dict[str, Any] | None:
        for o in self.origins:
            if o["kind"] == "birth" and (phases is None or o["phase"] in phases):
                return o
        return None

    # -- the dispatch hook ---------------------------------------------------------
    def _where(self) -> tuple[str, str | None, str | None]:
        node = torch._C._current_autograd_node()
        if node is not None:
            try:
                module = node.metadata.get(NODE_MODULE_KEY)
            except Exception:  # noqa: BLE001 - a node without metadata: module unknown
                module = None
            return "backward", module, node.name()
        if self.modules.stack:
            return "forward", self.modules.current(), None
        if self.phase_hint in ("data", "forward") and self.modules.root_forwards:
            return "loss", None, None
        return self.phase_hint, None, None

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = op_name(func)
        self.ops_seen += 1
        if name in _UNINITIALISED:
            return func(*args, **kwargs)
        pairs = _argument_names(func, args, kwargs)
        nonfinite_inputs: list[tuple[str, torch.Tensor]] = []
        inherited: int | None = None
        float_inputs: list[tuple[str, torch.Tensor]] = []
        bad_scalar = None
        for arg_name, value in pairs:
            for leaf in tree_leaves(value):
                if _is_float(leaf):
                    float_inputs.append((arg_name, leaf))
                    if not _all_finite(leaf):
                        nonfinite_inputs.append((arg_name, leaf))
                        if inherited is None:
                            inherited = self._tags.get(leaf)
                elif isinstance(leaf, float) and not math.isfinite(leaf) and bad_scalar is None:
                    bad_scalar = (arg_name, leaf)
        mutable = False
        try:
            mutable = func._schema.is_mutable
        except Exception:  # noqa: BLE001, S110 - no schema: treat the op as not mutating
            pass
        before = None
        if mutable and not nonfinite_inputs and bad_scalar is None:
            before = [(n, tensor_stats(t)) for n, t in float_inputs[:MAX_STATS_INPUTS]]

        out = func(*args, **kwargs)

        if inherited is not None:
            self._note_consumer(inherited, name)
        outputs = [t for t in tree_leaves(out) if _is_float(t)]
        bad_outputs = [t for t in outputs if not _all_finite(t)]
        if not bad_outputs:
            return out
        if inherited is None:
            if nonfinite_inputs:
                inherited = self._record_external(name, nonfinite_inputs[0])
            elif bad_scalar is not None:
                inherited = self._record_deliberate(name, bad_scalar)
            else:
                inherited = self._record_birth(func, name, float_inputs, before, bad_outputs[0], pairs)
        if inherited is not None:
            for t in bad_outputs:
                self._tags[t] = inherited
        return out

    # -- recording -------------------------------------------------------------------
    def _add(self, record: dict[str, Any]) -> int | None:
        if len(self.origins) >= MAX_ORIGINS:
            self.truncated = True
            return None
        record["index"] = len(self.origins)
        record["op_index"] = self.ops_seen
        record["step"] = self.step
        self.origins.append(record)
        return record["index"]

    def _note_consumer(self, index: int, name: str) -> None:
        """Remember the first operations a birth's non-finite values spread through (``consumers``).

        They tell what the born value was for: ``exp -> sum -> div`` is a softmax,
        ``exp -> add -> log`` a hand-written softplus or log-sum-exp.
        """
        record = self.origins[index]
        if record.get("kind") == "birth":
            consumers = record.setdefault("consumers", [])
            if len(consumers) < MAX_CONSUMERS:
                consumers.append(name)

    def _param_name(self, t: Any) -> str | None:
        return self.param_names.get(id(t))

    def _record_birth(self, func, name, float_inputs, before, bad_output, pairs) -> int | None:
        phase, module, node = self._where()
        inputs = before if before is not None else [(n, tensor_stats(t)) for n, t in float_inputs[:MAX_STATS_INPUTS]]
        scalars = {n: v for n, v in pairs if isinstance(v, (int, float)) and not isinstance(v, bool)}
        parameter = None
        self._candidate_params.setdefault(len(self.origins), [id(t) for _, t in float_inputs])
        for _, t in float_inputs:
            parameter = self._param_name(t)
            if parameter:
                break
        return self._add(
            {
                "kind": "birth",
                "op": name,
                "overload": str(getattr(func, "_overloadname", "")),
                "phase": phase,
                "module": module,
                "autograd_node": node,
                "parameter": parameter,
                "inputs": [{"arg": n, **s} for n, s in inputs],
                "scalars": {k: float(v) for k, v in scalars.items()},
                "output": tensor_stats(bad_output),
                "source": user_frame(),
            }
        )

    def _record_external(self, name, bad_input) -> int | None:
        arg_name, t = bad_input
        phase, module, node = self._where()
        return self._add(
            {
                "kind": "external",
                "op": name,
                "phase": phase,
                "module": module,
                "autograd_node": node,
                "arg": arg_name,
                "parameter": self._param_name(t),
                "input": tensor_stats(t),
            }
        )

    def _record_deliberate(self, name, scalar) -> int | None:
        arg_name, value = scalar
        phase, module, node = self._where()
        return self._add(
            {
                "kind": "constant",
                "op": name,
                "phase": phase,
                "module": module,
                "autograd_node": node,
                "arg": arg_name,
                "value": str(value),
            }
        )

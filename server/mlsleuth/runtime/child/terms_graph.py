"""Graph and naming helpers of the ``terms`` watch (:mod:`trace_terms`; child side, stdlib + torch only).

Splitting a scalar loss's autograd graph into its top-level terms, the parameters (``AccumulateGrad`` leaves) each
term reaches, whether a tensor holds a copy of another tensor's values, and the names shown for models and
optimizers.
"""

from __future__ import annotations

import os
import sys
from collections import deque
from typing import Any

from run_user_script import unwrap

MAX_TERMS = 12
MAX_ANCHORS = 16  # named nodes (loss calls, model outputs) kept per term, nearest first
COMBINERS = {"AddBackward0", "AddBackward1", "SubBackward0", "SubBackward1", "RsubBackward0", "RsubBackward1",
             "NegBackward0", "MulBackward0", "MulBackward1", "DivBackward0", "DivBackward1", "CloneBackward0",
             "ToCopyBackward0", "ViewBackward0", "ReshapeAliasBackward0", "UnsafeViewBackward0", "SqueezeBackward0",
             "SqueezeBackward1", "SqueezeBackward2", "UnsqueezeBackward0", "AliasBackward0"}
REDUCTIONS = {"SumBackward0", "MeanBackward0"}  # split only over a stack or cat of terms
GATHERS = {"StackBackward0", "CatBackward0"}
OPAQUE = ("CheckpointFunctionBackward",)  # reentrant checkpointing: the parameters inside are not graph leaves
_HERE = os.path.dirname(os.path.abspath(__file__))
_TORCH = f"{os.sep}torch{os.sep}"
_PACKAGES = (f"{os.sep}site-packages{os.sep}", f"{os.sep}dist-packages{os.sep}")


def site(start: int = 2) -> tuple:
    """``(path, line, frame)`` of the user's frame calling in: the first outside torch, this harness and installed
    packages (a framework's ``loss.backward()`` is shown at the user's call into it), else the first outside the
    first two."""
    frame = sys._getframe(start)
    fallback = None
    while frame is not None:
        path = frame.f_code.co_filename
        if not path.startswith(_HERE) and _TORCH not in path and not path.startswith("<"):
            if not any(p in path for p in _PACKAGES):
                return path, frame.f_lineno, frame
            fallback = fallback or (path, frame.f_lineno, frame)
        frame = frame.f_back
    return fallback or (None, None, None)


def first_grad_fn(output: Any, torch: Any) -> Any:
    """The autograd node of a model's output (a tensor, or the first tensor with one in a tuple, list or dict)."""
    if isinstance(output, torch.Tensor):
        return output.grad_fn
    items = list(output[:4]) if isinstance(output, (list, tuple)) else list(output.values())[:4] if isinstance(output, dict) else []
    for item in items:
        if isinstance(item, torch.Tensor) and item.grad_fn is not None:
            return item.grad_fn
    return None


def split_terms(fn: Any, is_loss: Any) -> list[tuple]:
    """The top-level summands of a scalar loss's graph: ``[(node, sign)]``; ``is_loss(node)``: a loss function's output
    (a term of its own, not split further)."""
    out, todo, seen = [], [(fn, 1.0)], 0
    while todo and seen < 256 and len(out) < MAX_TERMS:
        node, sign = todo.pop()
        seen += 1
        kind = type(node).__name__
        nxt = [n for n, _ in node.next_functions if n is not None]
        if node is not fn and is_loss(node):
            out.append((node, sign))
        elif kind in COMBINERS and not (kind.startswith("Mul") and len(nxt) > 1):
            # a weighted or shifted term (w * loss, loss / k, a + b, -a): each operand carrying gradient
            for i, (n, _) in enumerate(node.next_functions):
                if n is not None:
                    todo.append((n, -sign if kind.startswith("Neg") or (kind.startswith("Sub") and i == 1) else sign))
        elif kind in REDUCTIONS and len(nxt) == 1 and type(nxt[0]).__name__ in GATHERS:
            todo.extend((n, sign) for n in reversed([n for n, _ in nxt[0].next_functions if n is not None]))
        else:
            out.append((node, sign))
    if todo:  # more terms than can be judged: one term for the rest keeps the reach complete
        out.extend(todo)
    return out


def reach(start: Any, budget: list, named_nodes: dict) -> tuple:
    """``(leaf ids, named nodes nearest first, opaque?)`` of the sub-graph below ``start`` (breadth first); ``budget[0]``
    counts down the nodes visited, ``named_nodes`` is ``{id(node): (node, info, ...)}``."""
    seen, queue, leaves, anchors = {id(start)}, deque([start]), set(), []
    while queue:
        node = queue.popleft()
        budget[0] -= 1
        if budget[0] <= 0:
            break
        named = named_nodes.get(id(node))
        if named is not None and named[0] is node and len(anchors) < MAX_ANCHORS:
            anchors.append(named[1])
        var = getattr(node, "variable", None)
        if var is not None:
            leaves.add(id(var))
            continue
        if type(node).__name__.startswith(OPAQUE):
            return leaves, anchors, True
        for nxt, _ in node.next_functions:
            if nxt is not None and id(nxt) not in seen:
                seen.add(id(nxt))
                queue.append(nxt)
    return leaves, anchors, False


def holds(t: Any, out: Any, torch: Any) -> bool:
    """Whether ``t`` holds the values of ``out``: equal, or equal to its first or last slice along the one dimension
    where their shapes differ (a concatenation). ``out`` must not be constant (a match would say nothing)."""
    if t.device != out.device or t.dtype != out.dtype or t.dim() != out.dim() or out.numel() < 4 or t.numel() < out.numel():
        return False
    differ = [d for d in range(t.dim()) if t.shape[d] != out.shape[d]]
    if len(differ) > 1 or differ and t.shape[differ[0]] < out.shape[differ[0]]:
        return False
    o = out.detach()
    if bool(o.min() == o.max()):
        return False
    if not differ:
        return bool(torch.equal(t, o))
    d, n = differ[0], out.shape[differ[0]]
    return bool(torch.equal(t.narrow(d, 0, n), o)) or bool(torch.equal(t.narrow(d, t.shape[d] - n, n), o))


def public(info: dict | None) -> dict | None:
    return None if info is None else {k: v for k, v in info.items() if not k.startswith("_") and k != "kind"}


def variable_name(frame: Any, obj: Any) -> str | None:
    """A name the user's code gives ``obj`` in ``frame`` (its locals, then its globals)."""
    if frame is None:
        return None
    for space in (frame.f_locals, frame.f_globals):
        for k, v in list(space.items()):
            if v is obj and not k.startswith("_"):
                return k
    owner = frame.f_locals.get("self")
    if owner is not None:
        for k, v in list(getattr(owner, "__dict__", {}).items()):
            if v is obj:
                return f"self.{k}"
    return None


def param_names(runner: Any, labels: dict) -> dict[int, str]:
    out: dict[int, str] = {}
    several = len(runner.roots) > 1
    for root in runner.roots:
        prefix = f"{labels[id(root)]}." if several and id(root) in labels else runner.root_prefix(root, several)
        for name, p in unwrap(root).named_parameters():
            out.setdefault(id(p), prefix + name)
    return out


def params_label(names: list[str]) -> str | None:
    """The modules an optimizer's parameters belong to: their common prefix, else the first few top-level ones."""
    if not names:
        return None
    parts = [n.split(".")[:-1] for n in names]
    common = parts[0]
    for p in parts[1:]:
        k = 0
        while k < min(len(common), len(p)) and common[k] == p[k]:
            k += 1
        common = common[:k]
    if common:
        return ".".join(common)
    tops = []
    for n in names:
        top = n.split(".")[0]
        if top not in tops:
            tops.append(top)
    return ", ".join(tops[:3]) + (", ..." if len(tops) > 3 else "")

"""What a function does to the training state, summarised once so that callers in other modules can ask.

The loop rules read a training loop as a sequence of events (``zero_grad``, ``backward``,
``step``, ``train``, ``eval``). Helpers defined in the same file are inlined by the trace
builder (:mod:`~mlsleuth.scan.analysis.training_step_model`); a helper that lives in another
module of the project, or a method called on an instance (``model.val_start()``,
``trainer.train_step(batch)``), is summarised here instead: the ordered list of events its
body causes, each with the object it acts on expressed as ``self``, one of its parameters, or
unknown. The trace builder then replays the summary at the call site, with ``self`` and the
parameters replaced by what the caller passed.

Summaries are built bottom-up on demand (following calls into functions of this file, other
modules, and methods of the same class, a few levels deep), cached on the file's context, and
conservative: what cannot be resolved contributes nothing rather than a guess.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted

MAX_DEPTH = 3
_OPTIMIZER_WORDS = ("optim", "opt")


@dataclass(frozen=True)
class Effect:
    """One event a function causes: ``kind`` on ``subject`` ("self", a parameter name, or None when unknown)."""

    kind: str  # "train" | "eval" | "zero_grad" | "backward" | "step"
    subject: str | None
    where: str  # "model.py line 53", for messages


def _subject(func: ast.AST, expr: ast.AST | None) -> str | None:
    """``self``, a parameter of ``func`` (the root of ``expr``), or None."""
    root = value_origins.root_name(expr) if expr is not None else None
    if root is None:
        return None
    if root == "self":
        return "self"
    return root if root in value_origins.function_params(func) else None


def _own_calls(ctx: FileContext, func: ast.AST) -> list[ast.Call]:
    """Calls in ``func``'s own body (not in nested functions or classes), in source order."""
    calls = [n for n in ctx.walk_scope(func) if isinstance(n, ast.Call)]
    calls.sort(key=lambda c: (c.lineno, c.col_offset))
    return calls


def _mode_kind(call: ast.Call, method: str) -> str | None:
    if method == "eval":
        return None if call.args or call.keywords else "eval"
    if call.args:
        flag = constant(call.args[0])
        return "eval" if flag is False else "train"
    return "train"


def resolve_call(ctx: FileContext, call: ast.Call, *, bind_params: bool = True) -> tuple[FileContext, ast.AST] | None:
    """(file, function) a call runs, when the project knows it: a function of this file, of another module,
    a method of the enclosing class, or a method of an instance whose class is known (``bind_params``: also
    when the instance is a parameter that every caller fills with one, which costs a caller search)."""
    local = ctx.callee_definition(call)
    if local is not None:
        return ctx, local
    func = call.func
    elsewhere = value_origins.project_function(ctx, func)
    if elsewhere is not None:
        return elsewhere
    if isinstance(func, ast.Attribute) and not (isinstance(func.value, ast.Name) and func.value.id == "self"):
        owner = value_origins.instance_class(ctx, func.value, bind_params=bind_params)
        if owner is not None:
            return value_origins.class_method(owner[0], owner[1], func.attr)
    return None


def effects(ctx: FileContext, func: ast.AST, depth: int = 0) -> tuple[Effect, ...]:
    """The ordered training events ``func`` causes (see the module docstring)."""
    cache = ctx.__dict__.setdefault("_function_effects", {})
    if func in cache:
        return cache[func]
    cache[func] = ()  # recursion guard
    found: list[Effect] = []
    for call in _own_calls(ctx, func):
        method = call_method(call)
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        where = f"{ctx.display_path} line {call.lineno}"
        if method in {"train", "eval"} and receiver is not None:
            kind = _mode_kind(call, method)
            text = (dotted(receiver) or "").lower()
            if kind is not None and "trainer" not in text:
                found.append(Effect(kind, _subject(func, receiver), where))
            continue
        if method == "zero_grad":
            found.append(Effect("zero_grad", _subject(func, receiver), where))
            continue
        if method in {"backward", "manual_backward"}:
            found.append(Effect("backward", None, where))
            continue
        if method == "step" and receiver is not None:
            text = (dotted(receiver) or "").rsplit(".", 1)[-1].lower()
            if any(w in text for w in _OPTIMIZER_WORDS) and "sched" not in text:
                found.append(Effect("step", _subject(func, receiver), where))
            continue
        if depth >= MAX_DEPTH:
            continue
        target = resolve_call(ctx, call, bind_params=False)  # summaries stay cheap: no caller searches inside
        if target is None:
            continue
        tctx, tfunc = target
        for inner in effects(tctx, tfunc, depth + 1):
            found.append(Effect(inner.kind, _map_subject(ctx, func, call, tfunc, inner.subject), inner.where))
    result = tuple(found)
    cache[func] = result
    return result


def _map_subject(ctx: FileContext, func: ast.AST, call: ast.Call, callee: ast.AST, subject: str | None) -> str | None:
    """A callee's subject in the caller's terms: its ``self`` is the call's receiver, its parameters the arguments."""
    if subject is None:
        return None
    if subject == "self":
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        return _subject(func, receiver)
    arg = value_origins.argument_for(call, callee, subject)
    return _subject(func, arg)

"""Loops that cannot run twice, and loop variables that an inner loop overwrites.

:func:`exits_on_first_pass` says whether a ``for``/``while`` loop's body always ends its first pass with a
``return`` or ``break`` (the last statement of the body, also at the end of a ``with`` block, with no
``continue`` of the loop that could skip it), so the loop never starts a second pass.
:func:`repeated_work` says whether the body does work that only makes sense repeated: an update of a value made
before the loop (``total += x``, ``preds.append(p)``, ``cm[t, p] += 1``), or training: a ``backward()``/``step()``
or a call of a project function whose summary (:mod:`~mlsleuth.scan.analysis.function_summaries`) has one.
:func:`clobbered_loop_variables` finds, for a ``for`` loop, an inner ``for`` loop that rebinds one of its loop
variables while the outer body reads that variable again after the inner loop.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from mlsleuth.scan.analysis import function_summaries
from mlsleuth.scan.analysis.context import LOOPS, FileContext
from mlsleuth.scan.analysis.one_shot_iterables import both_run

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
# Methods that add to a container or running value made before the loop.
_GROWING_METHODS = frozenset({"append", "extend", "update", "add", "add_", "insert", "appendleft"})


def _last_statement(body: list[ast.stmt]) -> ast.stmt | None:
    last = body[-1] if body else None
    while isinstance(last, (ast.With, ast.AsyncWith)) and last.body:
        last = last.body[-1]
    return last


def _has_own_continue(loop: ast.AST) -> bool:
    stack = list(loop.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Continue):
            return True
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, LOOPS):
            stack.extend(node.orelse)  # an inner loop's own continue does not skip this loop's exit
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def exits_on_first_pass(loop: ast.AST) -> ast.stmt | None:
    """The ``return``/``break`` that always ends the first pass of ``loop``, or None. A loop over a tree walk
    (``os.walk(root)``: its first item is the top folder, read alone on purpose) is not counted."""
    if not isinstance(loop, LOOPS) or loop.orelse:
        return None
    if isinstance(loop, (ast.For, ast.AsyncFor)) and isinstance(loop.iter, ast.Call) and _called_name(loop.iter) == "walk":
        return None
    if isinstance(loop, ast.While) and isinstance(loop.test, ast.Constant):
        return None  # `while True: ... break`: a block run once on purpose
    last = _last_statement(loop.body)
    if not isinstance(last, (ast.Return, ast.Break)) or _has_own_continue(loop):
        return None
    return last


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _bound_before(ctx: FileContext, scope: ast.AST, name: str, line: int) -> bool:
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        args = scope.args
        if any(a.arg == name for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]):
            return True
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) and n.lineno < line
        for n in ctx.walk_scope(scope)
    )


def _root(expr: ast.AST) -> ast.AST:
    while isinstance(expr, (ast.Subscript, ast.Attribute)):
        expr = expr.value
    return expr


def repeated_work(ctx: FileContext, loop: ast.AST, *, training_only: bool = False) -> str | None:
    """What in the body of ``loop`` only makes sense repeated (``total += ...``, ``loss.backward()``), or None;
    ``training_only``: only a ``backward()``/``step()`` (here or in a project helper the body calls) counts."""
    scope = ctx.enclosing_function(loop) or ctx.tree
    for node in (n for stmt in loop.body for n in (stmt, *ctx.walk_scope(stmt))):
        if isinstance(node, ast.AugAssign) and not training_only:
            root = _root(node.target)
            if isinstance(root, ast.Name) and _bound_before(ctx, scope, root.id, loop.lineno):
                return f"`{ctx.segment(node.target, 30)} {_op(node.op)}= ...`"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            trains = _trains(ctx, node)
            if trains is not None:
                return trains
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method = node.func.attr
            if method in ("backward", "step") and not node.args:
                return f"`{ctx.segment(node.func, 40)}()`"
            trains = _trains(ctx, node)
            if trains is not None:
                return trains
            root = _root(node.func.value)
            if (
                not training_only and method in _GROWING_METHODS and isinstance(root, ast.Name) and root.id != "self"
                and _bound_before(ctx, scope, root.id, loop.lineno)
            ):
                return f"`{ctx.segment(node.func, 40)}(...)`"
    return None


def _trains(ctx: FileContext, call: ast.Call) -> str | None:
    """``call`` runs a project function that back-propagates or steps an optimizer (a training epoch)."""
    target = function_summaries.resolve_call(ctx, call, bind_params=False)
    if target is None:
        return None
    kinds = {e.kind for e in function_summaries.effects(*target)}
    if "backward" in kinds or "step" in kinds:
        return f"`{ctx.segment(call.func, 40)}(...)`, which trains (backward/step)"
    return None


def _op(op: ast.operator) -> str:
    return {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.BitOr: "|"}.get(type(op), "")


def _target_names(target: ast.AST) -> Iterator[ast.Name]:
    if isinstance(target, ast.Name):
        yield target
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            yield from _target_names(elt)
    elif isinstance(target, ast.Starred):
        yield from _target_names(target.value)


def clobbered_loop_variables(ctx: FileContext, loop: ast.AST) -> Iterator[tuple[str, ast.AST, ast.Name]]:
    """(name, inner loop, the read after it) for each variable of the ``for`` loop ``loop`` that an inner ``for``
    loop rebinds while the outer body reads it after the inner loop, with no rebinding in between."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return
    outer = {n.id for n in _target_names(loop.target)}
    body_nodes = [n for stmt in loop.body for n in [stmt, *ctx.walk_scope(stmt)]]
    reported: set[str] = set()
    for inner in body_nodes:
        if not isinstance(inner, (ast.For, ast.AsyncFor)):
            continue
        for name in {n.id for n in _target_names(inner.target)} & outer - reported:
            read = _read_after(ctx, body_nodes, inner, name)
            if read is not None:
                reported.add(name)
                yield name, inner, read


def _read_after(ctx: FileContext, body_nodes: list[ast.AST], inner: ast.AST, name: str) -> ast.Name | None:
    end = inner.end_lineno or inner.lineno
    inner_nodes = {id(n) for n in ctx.walk_scope(inner)}
    later = sorted(
        (n for n in body_nodes
         if isinstance(n, ast.Name) and n.id == name and id(n) not in inner_nodes and n.lineno > end),
        key=lambda n: (n.lineno, n.col_offset),
    )
    for n in later:
        if _comprehension_binds(ctx, n, name):
            continue  # `[idx[i] for i in row]`: the comprehension's own `i`
        if isinstance(n.ctx, ast.Store):
            return None
        if both_run(ctx, inner, n):
            return n
    return None


def _comprehension_binds(ctx: FileContext, node: ast.AST, name: str) -> bool:
    for anc in ctx.ancestors(node):
        if isinstance(anc, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            if any(n.id == name for gen in anc.generators for n in _target_names(gen.target)):
                return True
        elif isinstance(anc, ast.stmt):
            return False
    return False

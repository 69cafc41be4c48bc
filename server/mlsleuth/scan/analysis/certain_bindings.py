"""The binding of a name that certainly reaches a use, where a tuple target puts a name, and names reshaped in place.

A binding inside a branch, loop, ``try`` or ``with`` block that does not also hold the use may not be the one that
reaches it: :func:`reaching_binding` then answers None rather than guess.
"""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, dotted


def reaching_binding(ctx: FileContext, name: ast.Name) -> tuple[ast.AST, ast.expr | None] | None:
    """``(statement, value)`` of the binding that certainly reaches ``name``: the last one before it, not inside a
    branch, loop, ``try`` or ``with`` block that does not also hold the use."""
    scope = ctx.enclosing_function(name) or ctx.tree
    best = None
    for line, stmt, val in vo.bindings(ctx, scope).get(name.id, []):
        if line < name.lineno or (line == name.lineno and val is not None and val.col_offset > name.col_offset):
            best = (stmt, val)
    if best is None:
        return None
    use_blocks = set(map(id, ctx.ancestors(name)))
    for anc in ctx.ancestors(best[0]):
        if anc is scope:
            break
        if isinstance(anc, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith, ast.Match)) \
                and id(anc) not in use_blocks:
            return None
    if isinstance(best[0], (ast.For, ast.AsyncFor)) and id(best[0]) not in use_blocks:
        return None
    return best


_IN_PLACE_RESHAPES = frozenset({"unsqueeze_", "squeeze_", "resize_", "resize", "t_", "transpose_", "swapaxes_",
                                 "swapdims_", "as_strided_", "resize_as_", "set_"})


def reshaped_in_place(ctx: FileContext, scope: ast.AST) -> set[str]:
    """Names (``y``, ``self.y``) whose shape a statement of ``scope`` changes in place: ``y.unsqueeze_(1)``,
    ``arr.resize(...)``, ``arr.shape = (-1, 1)``. Their bound values do not tell their shape."""
    cache = ctx.__dict__.setdefault("_tensor_shapes_in_place", {})
    key = id(scope)
    if key not in cache:
        names = set()
        for node in ctx.subtree(scope):
            target = None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _IN_PLACE_RESHAPES:
                target = node.func.value
            elif isinstance(node, (ast.Assign, ast.AugAssign)):
                for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(t, ast.Attribute) and t.attr == "shape":
                        target = t.value
            text = dotted(target) if target is not None else None
            if text is not None:
                names.add(text)
        cache[key] = names
    return cache[key]


def unpacking_path(target: ast.AST, name: str) -> list[int] | None:
    """The positions that lead to ``name`` in the tuple target ``target`` (``a, (b, c) = ...``: ``c`` is ``[1, 1]``);
    None when ``name`` is not there or a starred element makes positions uncertain."""
    if isinstance(target, ast.Name):
        return [] if target.id == name else None
    if isinstance(target, (ast.Tuple, ast.List)):
        if any(isinstance(e, ast.Starred) for e in target.elts):
            return None
        for i, elt in enumerate(target.elts):
            inner = unpacking_path(elt, name)
            if inner is not None:
                return [i, *inner]
    return None

"""The ``dataset-len-wrong-axis`` rule: a dataset's `__len__` counts an axis that `__getitem__` does not index."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from mlsleuth.scan.analysis.context import FileContext, FunctionNode, constant
from mlsleuth.scan.prefilter import word
from mlsleuth.scan.registry import Rule, register_rule

_ROUNDING = frozenset({"int", "ceil", "floor", "round", "math.ceil", "math.floor", "np.ceil", "np.floor", "numpy.ceil", "numpy.floor"})

Axis = tuple[str, int]  # (the stored array expression as source text, the axis)


def _rooted_at_self(node: ast.AST) -> bool:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return isinstance(node, ast.Name) and node.id == "self"


def _uses(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def _index_param(fn: FunctionNode) -> str | None:
    args = fn.args.posonlyargs + fn.args.args
    if len(args) != 2:
        return None
    name = args[1].arg
    for node in ast.walk(fn):  # the index must reach the subscripts unchanged
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For)) else []
        if any(_uses(t, name) for t in targets):
            return None
    return name


def _indexed_axes(fn: FunctionNode, index: str) -> dict[str, set[int]]:
    """Per stored array (``self.x``, ``self.data["img"]``): the axes ``__getitem__`` indexes with its index."""
    axes: dict[str, set[int]] = {}
    for node in ast.walk(fn):
        if not isinstance(node, ast.Subscript) or not _rooted_at_self(node.value):
            continue
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        for position, elt in enumerate(elts):
            if any(isinstance(e, ast.Constant) and e.value is Ellipsis for e in elts[:position]):
                break  # an axis after `...` has no fixed number
            target = elt.lower if isinstance(elt, ast.Slice) else elt
            if target is not None and _uses(target, index):
                axes.setdefault(ast.unparse(node.value), set()).add(position)
    return axes


def _strip(expr: ast.expr) -> ast.expr:
    """``int(math.ceil(n / bs))``, ``n - window`` -> ``n``: the size the length is made from."""
    while True:
        if isinstance(expr, ast.Call) and len(expr.args) == 1 and not expr.keywords:
            func = expr.func
            name = func.id if isinstance(func, ast.Name) else (
                f"{func.value.id}.{func.attr}" if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None)
            if name in _ROUNDING:
                expr = expr.args[0]
                continue
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Sub, ast.Div, ast.FloorDiv, ast.Add)):
            expr = expr.left
            continue
        return expr


def _sizes(expr: ast.expr, aliases: dict[str, ast.expr]) -> list[Axis]:
    """The (array, axis) readings of a size expression: `x.shape[k]`, `x.size(k)`, `len(x)`, `len(x[0])`."""
    expr = _strip(expr)
    array: ast.AST | None = None
    axis: object = None
    if isinstance(expr, ast.Subscript):  # x.shape[k], x.size()[k], np.shape(x)[k]
        base = expr.value
        axis = constant(expr.slice)
        if isinstance(base, ast.Attribute) and base.attr == "shape":
            array = base.value
        elif isinstance(base, ast.Call) and isinstance(base.func, ast.Attribute) and base.func.attr == "size" and not base.args:
            array = base.func.value
        elif isinstance(base, ast.Call) and isinstance(base.func, ast.Attribute) and base.func.attr == "shape" and len(base.args) == 1:
            array = base.args[0]
    elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "size" and len(expr.args) == 1:
        array, axis = expr.func.value, constant(expr.args[0])
    elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "len" and len(expr.args) == 1:
        inner = expr.args[0]
        readings = _sizes_of(inner, 0, aliases)
        if isinstance(inner, ast.Subscript) and constant(inner.slice) == 0:  # len(x[0]): the second axis of x
            readings += _sizes_of(inner.value, 1, aliases)
        return readings
    if array is None or not isinstance(axis, int) or isinstance(axis, bool):
        return []
    return _sizes_of(array, axis, aliases)


def _sizes_of(array: ast.AST, axis: int, aliases: dict[str, ast.expr]) -> list[Axis]:
    if isinstance(array, ast.Name) and array.id in aliases:  # __init__: self.images = images; self.n = images.shape[1]
        array = aliases[array.id]
    return [(ast.unparse(array), axis)] if _rooted_at_self(array) else []


def _init_aliases(init: FunctionNode | None) -> dict[str, ast.expr]:
    """Parameter names of ``__init__`` stored unchanged on ``self`` (``self.images = images``)."""
    aliases: dict[str, ast.expr] = {}
    if init is None:
        return aliases
    for stmt in ast.walk(init):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.value, ast.Name):
            target = stmt.targets[0]
            if isinstance(target, ast.Attribute) and _rooted_at_self(target):
                aliases.setdefault(stmt.value.id, target)
    return aliases


def _length_readings(ctx: FileContext, cls: ast.ClassDef, length: FunctionNode, aliases: dict[str, ast.expr]) -> Iterator[tuple[ast.Return, list[Axis]]]:
    attrs = ctx.self_attributes(cls)
    for node in ast.walk(length):
        if not isinstance(node, ast.Return) or node.value is None:
            continue
        readings = _sizes(node.value, aliases)
        stripped = _strip(node.value)
        if not readings and isinstance(stripped, ast.Attribute) and _rooted_at_self(stripped) \
                and isinstance(stripped.value, ast.Name) and len(attrs.get(stripped.attr, ())) == 1:
            readings = _sizes(attrs[stripped.attr][0], aliases)  # return self.n, with self.n = x.shape[1]
        if readings:
            yield node, readings


@register_rule
class DatasetLenWrongAxis(Rule):
    """`__len__` counts an axis `__getitem__` does not index.

    What it finds: a class with `__len__` and `__getitem__` where `__getitem__` picks samples from a stored
    array along one axis (`self.images[idx]`, `self.x[:, idx]`, a batch slice `self.x[i * bs:(i + 1) * bs]`)
    and `__len__` returns the size of that same array along a different fixed axis: `self.images.shape[1]`,
    `self.x.size(2)`, `len(self.images[0])`, `np.shape(self.x)[1]`, also through `int(ceil(... / batch_size))`,
    `... - window`, or a `self.n` set from such an expression in `__init__`.
    Why it matters: the sampler draws indices from `range(len(dataset))`. With the image height, the
    sequence length or the feature count as the length, every epoch covers a fixed handful of samples
    (or indexes past the end on the wrong side). Training runs, the loss moves, and validation scores only a
    small slice of the data; nothing errors.
    How to confirm: print `len(dataset)` next to the array's shape; it should equal the size of the axis
    `__getitem__` indexes (usually the first).
    What to do instead: return the size of the sample axis (`self.images.shape[0]` / `len(self.images)`),
    the same axis `__getitem__` indexes with its index.
    """

    id = "dataset-len-wrong-axis"
    category = "data"
    severity = "error"
    triggers = ("__len__",)
    requires = ((word("__getitem__"),),)

    def check(self, ctx: FileContext):
        for cls in ctx.classes:
            length, getitem = ctx.method(cls, "__len__"), ctx.method(cls, "__getitem__")
            if length is None or getitem is None:
                continue
            index = _index_param(getitem)
            if index is None:
                continue
            indexed = _indexed_axes(getitem, index)
            aliases = _init_aliases(ctx.method(cls, "__init__"))
            for ret, readings in _length_readings(ctx, cls, length, aliases):
                if any(axis in indexed.get(key, ()) for key, axis in readings):
                    continue  # one reading of the length matches the indexed axis
                wrong = [(key, axis) for key, axis in readings if axis >= 0 and len(indexed.get(key, ())) == 1
                         and next(iter(indexed[key])) >= 0]
                if not wrong:
                    continue
                key, axis = wrong[0]
                used = next(iter(indexed[key]))
                array = key
                yield self.finding(
                    ctx,
                    ret,
                    f"__len__ returns the size of axis {axis} of {array}, but __getitem__ indexes {array} along axis "
                    f"{used}: the sampler will only draw indices below that axis's size",
                    observation=f"`{ctx.segment(ret.value, 60)}` in __len__; __getitem__ indexes {array} with `{index}` on axis {used}",
                    next_test=f"Print len(dataset) and {array}.shape: the length should be the size of axis {used}.",
                )


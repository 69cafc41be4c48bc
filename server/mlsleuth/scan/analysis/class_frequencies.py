"""Class frequencies: whether a value holds one number per class (counts, priors, inverse-frequency weights)
rather than one number per sample.

Data rules ask this of values that an API expects per sample (``WeightedRandomSampler``'s weights) or per
class (a loss's ``weight``). The answer is a :class:`PerClass` naming the call that counted the classes, or
``None`` when the value cannot be followed or has been indexed by the samples' labels again
(``class_w[labels]``, ``[class_w[y] for y in targets]``, ``labels.map(class_w)``): that turns a per-class
table back into per-sample weights, which is the correct way to build them.

Followed: local and module-level assignments, counts accumulated with ``+=``, tuple unpacking of
``np.unique(..., return_counts=True)`` and of a helper's returned tuple, parameters (every caller must pass a
per-class value), arithmetic with scalars (``1.0 / counts``, ``w / w.sum()``), conversions (``torch.tensor``,
``np.asarray``, ``.float()``, ``.values``), and helper functions of the project (their ``return`` statements
decide). The answer also says which way the entries go with the class size (:attr:`PerClass.inverse`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, keyword

MAX_DEPTH = 10

# Calls whose result has one entry per class.
_COUNTING_FUNCTIONS = frozenset(
    {
        "numpy.bincount", "torch.bincount", "collections.Counter",
        "sklearn.utils.class_weight.compute_class_weight", "sklearn.utils.compute_class_weight",
    }
)
_COUNTING_METHODS = frozenset({"value_counts", "bincount"})
# Conversions and elementwise maps that keep the length of their input.
_KEEP_FUNCTIONS = frozenset(
    {
        "torch.tensor", "torch.as_tensor", "torch.from_numpy", "torch.Tensor", "torch.FloatTensor", "torch.DoubleTensor",
        "numpy.array", "numpy.asarray", "numpy.float32", "numpy.log", "numpy.log1p", "numpy.sqrt", "numpy.power",
        "torch.log", "torch.log1p", "torch.sqrt", "torch.pow", "numpy.clip", "torch.clamp", "numpy.maximum", "torch.maximum",
        "list", "tuple", "sorted",
    }
)
_KEEP_METHODS = frozenset(
    {
        "float", "double", "to", "cpu", "numpy", "tolist", "astype", "clone", "detach", "sort_index", "sort_values",
        "to_numpy", "values", "clip", "clamp", "clamp_", "sqrt", "log", "log1p", "type",
    }
)
_SCALAR_METHODS = frozenset({"sum", "max", "min", "mean", "item", "size", "numel", "count", "nelement"})


@dataclass
class PerClass:
    """A value with one entry per class, and the call (in ``where``'s file) that counted the classes.

    ``inverse``: the entries shrink as the class grows (``1 / counts``, ``counts.sum() / counts``, ``1 - freq``,
    sklearn's balanced weights); False when they grow with it (counts, frequencies, ``log(counts)``)."""

    source: ast.AST
    where: FileContext
    inverse: bool | None = False  # None: one entry per class, but which way they go is not known

    def flipped(self) -> PerClass:
        return PerClass(self.source, self.where, None if self.inverse is None else not self.inverse)

    def describe(self) -> str:
        return f"{self.where.segment(self.source, 60)} (line {self.source.lineno}{_file_note(self.where)})"  # type: ignore[attr-defined]


def _file_note(ctx: FileContext) -> str:
    return f" of {ctx.display_path}" if ctx.display_path else ""


def per_class(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> PerClass | None:
    """A :class:`PerClass` when ``expr`` certainly holds one entry per class; else ``None`` (unknown)."""
    if expr is None or depth > MAX_DEPTH:
        return None
    if isinstance(expr, ast.Name):
        return _name(ctx, expr, depth)
    if isinstance(expr, ast.Call):
        return _call(ctx, expr, depth)
    if isinstance(expr, ast.BinOp):
        return _arithmetic(ctx, expr, depth)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.UAdd):
        return per_class(ctx, expr.operand, depth + 1)
    if isinstance(expr, ast.Attribute) and expr.attr in ("values", "T", "data"):
        return per_class(ctx, expr.value, depth + 1)
    if isinstance(expr, ast.ListComp):
        return _comprehension(ctx, expr, depth)
    return None  # a subscript re-indexes (by labels, or picks one class); literals and the rest: unknown


def _name(ctx: FileContext, name: ast.Name, depth: int) -> PerClass | None:
    unpacked = _unique_counts(ctx, name)
    if unpacked is not None:
        return PerClass(unpacked, ctx)
    accumulated = _accumulated(ctx, name, depth)
    if accumulated is not None:
        return accumulated
    element = _returned_element(ctx, name, depth)
    if element is not None:
        return element
    if vo.is_parameter(ctx, name):
        return _from_callers(ctx, name, depth)
    bound = vo.local_value(ctx, name)
    if bound is None and ctx.enclosing_function(name) is None:
        bound = vo.module_value(ctx, name.id)
    if bound is None or bound is name:
        return None
    return per_class(ctx, bound, depth + 1)


def _accumulated(ctx: FileContext, name: ast.Name, depth: int) -> PerClass | None:
    """``counts = torch.zeros(k)`` then ``counts += torch.bincount(...)`` in a loop: per class, as the ``+=`` adds."""
    scope = ctx.enclosing_function(name) or ctx.tree
    for node in ctx.walk_scope(scope):
        if (isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name)
                and node.target.id == name.id and node.lineno < name.lineno):
            found = per_class(ctx, node.value, depth + 1)
            if found is not None:
                return found
    return None


def _returned_element(ctx: FileContext, name: ast.Name, depth: int) -> PerClass | None:
    """``labels, weight = helper(...)``: element ``i`` of every tuple the helper returns."""
    unpacked = vo.unpacking_call(ctx, name, inclusive=True)
    if unpacked is None:
        return None
    stmt, index = unpacked
    elts = stmt.targets[0].elts  # type: ignore[attr-defined]
    helper = vo.helper_definition(ctx, stmt.value)  # type: ignore[arg-type]
    if helper is None:
        return None
    there, func = helper
    found = []
    for returned in vo.returns(func):
        if not (isinstance(returned, ast.Tuple) and len(returned.elts) == len(elts)):
            return None
        found.append(per_class(there, returned.elts[index], depth + 1))
    return _agree(found)


def _from_callers(ctx: FileContext, name: ast.Name, depth: int) -> PerClass | None:
    """A parameter: per class when every caller in the project passes a per-class value, all the same way round."""
    found = [per_class(there, arg, depth + 1) if arg is not None else None
             for there, arg in vo.passed_arguments(ctx, ctx.enclosing_function(name), name.id)]
    return _agree(found)


def _agree(found: list[PerClass | None]) -> PerClass | None:
    if not found or not all(found) or len({f.inverse for f in found}) != 1:  # type: ignore[union-attr]
        return None
    return found[0]


def _unique_counts(ctx: FileContext, name: ast.Name) -> ast.Call | None:
    """``_, counts = np.unique(y, return_counts=True)`` (or ``torch.unique``): the counts element."""
    scope = ctx.enclosing_function(name) or ctx.tree
    before = [e for e in vo.bindings(ctx, scope).get(name.id, []) if e[0] <= name.lineno]
    if not before:
        return None
    stmt = before[-1][1]
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple)):
        return None
    call = stmt.value
    if not (isinstance(call, ast.Call) and (vo.normalize(ctx.qualname(call)) or "") in ("numpy.unique", "torch.unique")):
        return None
    flag = keyword(call, "return_counts")
    if not (isinstance(flag, ast.Constant) and flag.value is True):
        return None
    last = stmt.targets[0].elts[-1]
    return call if isinstance(last, ast.Name) and last.id == name.id else None


def _call(ctx: FileContext, call: ast.Call, depth: int) -> PerClass | None:
    qual = vo.normalize(ctx.qualname(call)) or ""
    method = call_method(call)
    if qual.endswith(".compute_class_weight"):
        return PerClass(call, ctx, inverse=True)  # balanced weights: n_samples / (n_classes * counts)
    if qual in _COUNTING_FUNCTIONS:
        return PerClass(call, ctx)
    if isinstance(call.func, ast.Attribute) and method in _COUNTING_METHODS:
        return PerClass(call, ctx)
    if qual in ("numpy.power", "torch.pow") and len(call.args) == 2:
        found = per_class(ctx, call.args[0], depth + 1)
        return _powered(found, call.args[1])
    if qual in ("numpy.reciprocal", "torch.reciprocal") and call.args:
        found = per_class(ctx, call.args[0], depth + 1)
        return found.flipped() if found else None
    if qual in _KEEP_FUNCTIONS:
        return per_class(ctx, call.args[0], depth + 1) if call.args else None
    if isinstance(call.func, ast.Attribute) and method in ("reciprocal", "reciprocal_"):
        found = per_class(ctx, call.func.value, depth + 1)
        return found.flipped() if found else None
    if isinstance(call.func, ast.Attribute) and method == "pow" and call.args:
        return _powered(per_class(ctx, call.func.value, depth + 1), call.args[0])
    if isinstance(call.func, ast.Attribute) and method in _KEEP_METHODS:
        return per_class(ctx, call.func.value, depth + 1)
    helper = vo.helper_definition(ctx, call)
    if helper is not None:
        there, func = helper
        returns = vo.returns(func)
        found = [per_class(there, r, depth + 1) for r in returns]
        if returns and all(found):
            return found[0]
    return None


def _scalar(ctx: FileContext, expr: ast.AST) -> bool:
    """A number, or a reduction of something to one number (``counts.sum()``, ``len(y)``)."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, (int, float)):
        return True
    if isinstance(expr, ast.Call):
        if isinstance(expr.func, ast.Name) and expr.func.id in ("len", "float", "int", "sum", "max", "min"):
            return True
        if isinstance(expr.func, ast.Attribute) and call_method(expr) in _SCALAR_METHODS and not expr.args:
            return True
    if isinstance(expr, ast.Name):
        bound = vo.local_value(ctx, expr)
        return bound is not None and bound is not expr and _scalar(ctx, bound)
    if isinstance(expr, ast.BinOp):
        return _scalar(ctx, expr.left) and _scalar(ctx, expr.right)
    return False


def _arithmetic(ctx: FileContext, expr: ast.BinOp, depth: int) -> PerClass | None:
    """``1.0 / counts`` (inverse), ``counts / counts.sum()`` (same way), ``1 - freq`` (inverse), ``counts ** -0.5``
    (inverse): per class when one side is and the other is a scalar; two per-class sides only multiply or add when
    they go the same way."""
    left = per_class(ctx, expr.left, depth + 1)
    right = None if isinstance(expr.op, ast.Pow) else per_class(ctx, expr.right, depth + 1)
    op = expr.op
    if isinstance(op, ast.Pow):
        return _powered(left, expr.right)
    if left and right:
        if isinstance(op, (ast.Mult, ast.Add)) and left.inverse == right.inverse and left.inverse is not None:
            return left
        return None
    if left and _scalar(ctx, expr.right):
        return left if isinstance(op, (ast.Mult, ast.Div, ast.Add, ast.Sub)) else None
    if right and _scalar(ctx, expr.left):
        if isinstance(op, (ast.Div, ast.Sub)):
            return right.flipped()
        return right if isinstance(op, (ast.Mult, ast.Add)) else None
    return None


def _powered(found: PerClass | None, exponent: ast.AST) -> PerClass | None:
    """``w ** k``: the same way round for k > 0, inverted for k < 0, unknown otherwise."""
    value = exponent.value if isinstance(exponent, ast.Constant) else None
    if isinstance(exponent, ast.UnaryOp) and isinstance(exponent.op, ast.USub) and isinstance(exponent.operand, ast.Constant):
        value = -exponent.operand.value if isinstance(exponent.operand.value, (int, float)) else None
    if found is None or not isinstance(value, (int, float)) or value == 0:
        return None
    return found if value > 0 else found.flipped()


def _comprehension(ctx: FileContext, comp: ast.ListComp, depth: int) -> PerClass | None:
    """``[1 / counts[c] for c in counts]`` (or ``sorted(counts)``, ``counts.keys()``, ``range(len(counts))``): one entry per
    class. A comprehension over anything else (the labels) is per sample, or unknown."""
    if len(comp.generators) != 1:
        return None
    source = comp.generators[0].iter
    if isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id == "sorted" and source.args:
        source = source.args[0]
    if isinstance(source, ast.Call) and (
        (vo.normalize(ctx.qualname(source)) or "") in ("numpy.unique", "torch.unique") and keyword(source, "return_counts") is None
        or isinstance(source.func, ast.Name) and source.func.id == "set"
    ):
        return PerClass(source, ctx, inverse=None)  # one entry per distinct label, whatever it computes
    if isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id in ("sorted", "list") and source.args:
        source = source.args[0]
    if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and call_method(source) in ("keys", "items", "values"):
        source = source.func.value
    if isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id == "range" and len(source.args) == 1:
        bound = source.args[0]
        if isinstance(bound, ast.Call) and isinstance(bound.func, ast.Name) and bound.func.id == "len" and bound.args:
            source = bound.args[0]
        else:
            return None
    return per_class(ctx, source, depth + 1)


def per_sample_lookup(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> PerClass | None:
    """The per-class table that ``expr`` looks up once per sample (``class_w[labels]``, ``[class_w[y] for y in
    labels]``, ``labels.map(class_w)``), with which way the looked-up values go with the class size; ``None``
    when ``expr`` is no such lookup or the table cannot be followed. Followed through local names, conversions
    and arithmetic with scalars (``1.0 / counts[labels]`` is inverse)."""
    if expr is None or depth > MAX_DEPTH:
        return None
    if isinstance(expr, ast.Name):
        bound = vo.local_value(ctx, expr)
        if bound is None and ctx.enclosing_function(expr) is None:
            bound = vo.module_value(ctx, expr.id)
        return per_sample_lookup(ctx, bound, depth + 1) if bound is not None and bound is not expr else None
    if isinstance(expr, ast.Attribute) and expr.attr in ("values", "data"):
        return per_sample_lookup(ctx, expr.value, depth + 1)
    if isinstance(expr, ast.Subscript):
        index = expr.slice
        if isinstance(index, (ast.Constant, ast.Slice, ast.Tuple)):
            return None
        return per_class(ctx, expr.value, depth + 1)
    if isinstance(expr, ast.ListComp) and len(expr.generators) == 1:
        elt, target = expr.elt, expr.generators[0].target
        if isinstance(elt, ast.Subscript) and isinstance(target, ast.Name) and isinstance(elt.slice, ast.Name) \
                and elt.slice.id == target.id:
            return per_class(ctx, elt.value, depth + 1)
        return None
    if isinstance(expr, ast.Call):
        qual = vo.normalize(ctx.qualname(expr)) or ""
        method = call_method(expr)
        if isinstance(expr.func, ast.Attribute) and method == "map" and len(expr.args) == 1:
            return per_class(ctx, expr.args[0], depth + 1)
        if qual in _KEEP_FUNCTIONS and expr.args and qual not in ("numpy.log", "numpy.log1p", "numpy.sqrt", "torch.log",
                                                                   "torch.log1p", "torch.sqrt", "sorted"):
            return per_sample_lookup(ctx, expr.args[0], depth + 1)
        if isinstance(expr.func, ast.Attribute) and method in ("float", "double", "to", "cpu", "numpy", "tolist", "astype",
                                                               "clone", "detach", "to_numpy", "values", "type"):
            return per_sample_lookup(ctx, expr.func.value, depth + 1)
        return None
    if isinstance(expr, ast.BinOp):
        left = per_sample_lookup(ctx, expr.left, depth + 1)
        if left is not None and _scalar(ctx, expr.right) and isinstance(expr.op, (ast.Mult, ast.Div)):
            return left
        right = per_sample_lookup(ctx, expr.right, depth + 1)
        if right is not None and _scalar(ctx, expr.left):
            if isinstance(expr.op, ast.Div):
                return right.flipped()
            return right if isinstance(expr.op, ast.Mult) else None
    return None

"""The ``sampler-weights-per-class`` rule: one weight per class handed to `WeightedRandomSampler`."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted, keyword
from mlsleuth.scan.registry import Rule, register_rule

_COUNTERS = frozenset({"bincount", "Counter", "value_counts", "compute_class_weight"})
_WRAPPERS = frozenset(
    {"tensor", "as_tensor", "from_numpy", "array", "asarray", "list", "tuple", "DoubleTensor", "FloatTensor", "Tensor",
     "sorted", "reciprocal", "sqrt", "log", "power", "pow", "exp"}
)
_METHODS = frozenset(
    {"float", "double", "to", "cpu", "numpy", "tolist", "values", "reciprocal", "sqrt", "pow", "flatten", "squeeze",
     "clone", "detach", "type", "astype", "to_numpy", "sort_index", "log"}
)
PER_CLASS, PER_SAMPLE = True, False


def _unpacked_counts(ctx: FileContext, name: ast.Name) -> bool | None:
    """``_, counts = np.unique(y, return_counts=True)``: ``counts`` is one number per class."""
    scope = ctx.enclosing_function(name) or ctx.tree
    for line, stmt, val in reversed(vo.bindings(ctx, scope).get(name.id, [])):
        if line > name.lineno:
            continue
        if val is not None or not isinstance(stmt, ast.Assign) or not isinstance(stmt.value, ast.Call):
            return None
        call = stmt.value
        if call_method(call) == "unique" or (dotted(call.func) or "").endswith("unique"):
            target = stmt.targets[0]
            if isinstance(target, ast.Tuple) and len(target.elts) >= 2 and constant(keyword(call, "return_counts")) is True:
                last = target.elts[-1]
                return PER_CLASS if isinstance(last, ast.Name) and last.id == name.id else None
        return None
    return None


def _iterates_classes(ctx: FileContext, expr: ast.AST) -> bool:
    """``np.unique(y)``, ``set(labels)``, ``sorted(set(labels))``, ``range(num_classes)``: one item per class."""
    while isinstance(expr, ast.Call) and (dotted(expr.func) or "") in {"sorted", "list"} and expr.args:
        expr = expr.args[0]
    if not isinstance(expr, ast.Call):
        return False
    name = (dotted(expr.func) or "").rsplit(".", 1)[-1] or (call_method(expr) or "")
    if name in {"unique", "set"} and constant(keyword(expr, "return_counts")) is not True:
        return True
    if name == "range" and len(expr.args) == 1:
        arg = dotted(expr.args[0]) or ""
        return bool({"classes", "class", "cls"} & set(vo.words(arg.rsplit(".", 1)[-1])))
    return False


def kind(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> bool | None:
    """PER_CLASS when ``expr`` is made from class counts (``1. / np.bincount(y)``), PER_SAMPLE when it is
    indexed by the samples' labels (``class_w[y]``, ``[w[t] for t in targets]``), None when unknown."""
    if expr is None or depth > 10:
        return None
    if isinstance(expr, ast.Name):
        bound = vo.value(ctx, expr)
        if bound is None or bound is expr:
            return _unpacked_counts(ctx, expr)
        return kind(ctx, bound, depth + 1)
    if isinstance(expr, ast.Call):
        name = (dotted(expr.func) or "").rsplit(".", 1)[-1] or (call_method(expr) or "")
        if name in _COUNTERS:
            return PER_CLASS
        if name == "unique" and constant(keyword(expr, "return_counts")) is True:
            return None  # a tuple; its [1] is read below
        if isinstance(expr.func, ast.Attribute) and name in _METHODS:
            return kind(ctx, expr.func.value, depth + 1)
        if name in _WRAPPERS and expr.args:
            return kind(ctx, expr.args[0], depth + 1)
        if name in {"gather", "take", "index_select", "map", "apply"}:
            return PER_SAMPLE
        return None
    if isinstance(expr, ast.BinOp):
        sides = [kind(ctx, expr.left, depth + 1), kind(ctx, expr.right, depth + 1)]
        if PER_SAMPLE in sides:
            return PER_SAMPLE
        return PER_CLASS if PER_CLASS in sides else None
    if isinstance(expr, ast.UnaryOp):
        return kind(ctx, expr.operand, depth + 1)
    if isinstance(expr, ast.Subscript):
        key = constant(expr.slice)
        if isinstance(key, int) and isinstance(expr.value, ast.Call) and constant(keyword(expr.value, "return_counts")) is True:
            return PER_CLASS
        if key is ... and not isinstance(expr.slice, ast.Slice):
            return PER_SAMPLE  # weights[labels]: looked up per sample
        return None
    if isinstance(expr, (ast.ListComp, ast.GeneratorExp)) and len(expr.generators) == 1:
        gen = expr.generators[0]
        over = PER_CLASS if _iterates_classes(ctx, gen.iter) else kind(ctx, gen.iter, depth + 1)
        if over is PER_CLASS:
            return PER_CLASS
        loop_vars = {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
        indexed = any(
            isinstance(n, ast.Subscript) and any(isinstance(m, ast.Name) and m.id in loop_vars for m in ast.walk(n.slice))
            for n in ast.walk(expr.elt)
        )
        return PER_SAMPLE if indexed or over is PER_SAMPLE else None
    return None


@register_rule
class SamplerWeightsPerClass(Rule):
    """`WeightedRandomSampler` given one weight per class, not per sample

    What it finds: the `weights` of a `WeightedRandomSampler` computed from class counts
    (`1. / np.bincount(labels)`, `1 / torch.tensor(class_counts)`, `compute_class_weight(...)`,
    `[1 / c for c in Counter(targets).values()]`, the counts of `np.unique(..., return_counts=True)`)
    and never looked up per sample (`class_weights[labels]`).
    Why it matters: the sampler draws dataset indices in proportion to the weight at each index, so a vector
    of K class weights makes it draw only the indices 0..K-1: every epoch trains on the first few samples
    of the dataset over and over. Nothing fails; the loss drops fast (a handful of memorised samples) and
    the model does not generalise.
    How to confirm: `len(sampler.weights)` equals the number of classes, not `len(dataset)`; or collect the
    indices `list(sampler)`: they are all below the number of classes.
    What to do instead: look the class weight up for every sample,
    `WeightedRandomSampler(class_weights[labels], num_samples=len(labels))`.
    """

    id = "sampler-weights-per-class"
    category = "data"
    severity = "error"
    triggers = ("WeightedRandomSampler",)

    def check(self, ctx: FileContext):
        for call in ctx.calls_named("WeightedRandomSampler"):
            weights = keyword(call, "weights") or (call.args[0] if call.args else None)
            if weights is None or kind(ctx, weights) is not PER_CLASS:
                continue
            yield self.finding(
                ctx,
                weights,
                f"`{ctx.segment(weights, 60)}` holds one weight per class, but WeightedRandomSampler wants one weight "
                "per sample: it will only ever draw the dataset indices 0..num_classes-1",
                next_test="Check len(sampler.weights) against len(dataset), or look at the indices list(sampler) draws.",
            )

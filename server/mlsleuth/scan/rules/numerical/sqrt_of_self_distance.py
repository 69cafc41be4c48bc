"""The ``sqrt-of-self-distance`` rule: a hand-written pairwise distance of a set with itself, whose sqrt has a NaN gradient on the diagonal."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import torch_idioms, value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method, constant
from mlsleuth.scan.registry import Rule, register_rule

_SQRT_FUNCS = {"torch.sqrt", "numpy.sqrt"}
_POW_FUNCS = {"torch.pow"}
_SUM_FUNCS = {"torch.sum", "torch.mean"}
_SQUARE_FUNCS = {"torch.square"}
# shape-only steps that turn one set of vectors into the rows / the columns of a pairwise grid
_BROADCAST_METHODS = {"unsqueeze", "view", "reshape", "expand", "expand_as", "view_as", "contiguous"}
_BROADCAST_FUNCS = {"torch.unsqueeze", "torch.reshape"}
_LOSS_WORDS = {"loss", "losses", "criterion", "objective", "contrastive", "triplet", "margin"}


def _is_half(node: ast.AST | None) -> bool:
    return constant(node) == 0.5 and not isinstance(constant(node), bool)


def _sqrt_operand(ctx: FileContext, node: ast.AST) -> ast.AST | None:
    """``u`` for ``torch.sqrt(u)``, ``u.sqrt()``, ``u ** 0.5``, ``torch.pow(u, 0.5)``, ``u.pow(0.5)``."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and _is_half(node.right):
        return node.left
    if not isinstance(node, ast.Call):
        return None
    qual = value_origins.normalize(ctx.qualname(node))
    if qual in _SQRT_FUNCS and len(node.args) == 1:
        return node.args[0]
    if qual in _POW_FUNCS and len(node.args) == 2 and _is_half(node.args[1]):
        return node.args[0]
    method = call_method(node)
    if qual is None or qual.split(".")[0] not in ctx.imports:
        if method == "sqrt" and not node.args and isinstance(node.func, ast.Attribute):
            return node.func.value
        if method == "pow" and len(node.args) == 1 and _is_half(node.args[0]) and isinstance(node.func, ast.Attribute):
            return node.func.value
    return None


def _follow(ctx: FileContext, expr: ast.AST) -> ast.AST:
    """A local name's value (one step at a time, a few steps at most)."""
    for _ in range(4):
        if not isinstance(expr, ast.Name):
            return expr
        bound = value_origins.value(ctx, expr)
        if bound is None or bound is expr or isinstance(bound, ast.Name) and bound.id == expr.id:
            return expr
        expr = bound
    return expr


def _summed(ctx: FileContext, expr: ast.AST) -> ast.AST | None:
    """``x`` for ``x.sum(dim)``, ``x.mean(dim)``, ``torch.sum(x, dim)``."""
    expr = _follow(ctx, expr)
    if not isinstance(expr, ast.Call):
        return None
    if value_origins.normalize(ctx.qualname(expr)) in _SUM_FUNCS and expr.args:
        return expr.args[0]
    if call_method(expr) in ("sum", "mean") and isinstance(expr.func, ast.Attribute):
        return expr.func.value
    return None


def _squared(ctx: FileContext, expr: ast.AST) -> ast.AST | None:
    """``d`` for ``d ** 2``, ``d.pow(2)``, ``d * d``, ``torch.square(d)``, ``d.square()``, ``torch.pow(d, 2)``."""
    expr = _follow(ctx, expr)
    if isinstance(expr, ast.BinOp):
        if isinstance(expr.op, ast.Pow) and constant(expr.right) == 2:
            return expr.left
        if isinstance(expr.op, ast.Mult) and ast.dump(expr.left) == ast.dump(expr.right):
            return expr.left
        return None
    if not isinstance(expr, ast.Call):
        return None
    qual = value_origins.normalize(ctx.qualname(expr))
    if qual in _SQUARE_FUNCS and len(expr.args) == 1:
        return expr.args[0]
    if qual in _POW_FUNCS and len(expr.args) == 2 and constant(expr.args[1]) == 2:
        return expr.args[0]
    if isinstance(expr.func, ast.Attribute):
        if call_method(expr) == "square" and not expr.args:
            return expr.func.value
        if call_method(expr) == "pow" and len(expr.args) == 1 and constant(expr.args[0]) == 2:
            return expr.func.value
    return None


def _base(ctx: FileContext, expr: ast.AST) -> ast.AST:
    """The set of vectors behind a broadcast view: ``x`` for ``x.unsqueeze(1)``, ``x[:, None]``, ``x[None, :, :]``."""
    for _ in range(6):
        expr = _follow(ctx, expr)
        if isinstance(expr, ast.Subscript) and _only_new_axes(expr.slice):
            expr = expr.value
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and call_method(expr) in _BROADCAST_METHODS:
            expr = expr.func.value
        elif isinstance(expr, ast.Call) and value_origins.normalize(ctx.qualname(expr)) in _BROADCAST_FUNCS and expr.args:
            expr = expr.args[0]
        else:
            return expr
    return expr


def _only_new_axes(index: ast.AST) -> bool:
    """``[:, None]``, ``[None]``, ``[None, :, :]``, ``[..., None, :]``: new axes and full slices, nothing selected."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    has_new = False
    for part in parts:
        if isinstance(part, ast.Constant) and part.value is None:
            has_new = True
        elif isinstance(part, ast.Constant) and part.value is Ellipsis:
            continue
        elif not (isinstance(part, ast.Slice) and part.lower is None and part.upper is None and part.step is None):
            return False
    return has_new


def _self_difference(ctx: FileContext, diff: ast.AST) -> tuple[ast.BinOp, ast.AST, ast.AST] | None:
    """``(a_view - b_view, a, b)`` when ``diff`` subtracts two different broadcast views of the sets ``a`` and ``b``."""
    diff = _follow(ctx, diff)
    if not (isinstance(diff, ast.BinOp) and isinstance(diff.op, ast.Sub)):
        return None
    left, right = _base(ctx, diff.left), _base(ctx, diff.right)
    if ast.dump(_follow(ctx, diff.left)) == ast.dump(_follow(ctx, diff.right)):
        return None  # x - x: not a pairwise grid
    if left is _follow(ctx, diff.left) and right is _follow(ctx, diff.right):
        return None  # neither side is a broadcast view: an elementwise difference of two tensors
    return diff, left, right


def _same_set(ctx: FileContext, a: ast.AST, b: ast.AST) -> str | None:
    """How we know ``a`` and ``b`` are one set of vectors: the same expression here, or two parameters
    of a helper that every caller passes the same value for. None when they may differ."""
    if ast.dump(a) == ast.dump(b):
        return "the same tensor"
    if not (isinstance(a, ast.Name) and isinstance(b, ast.Name)):
        return None
    if not (value_origins.is_parameter(ctx, a) and value_origins.is_parameter(ctx, b)):
        return None
    func = ctx.enclosing_function(a)
    sites = value_origins.all_call_sites(ctx, func) if func is not None else []
    if not sites:
        return None
    for _sctx, site in sites:
        x, y = value_origins.argument_for(site, func, a.id), value_origins.argument_for(site, func, b.id)
        if x is None or y is None or ast.dump(x) != ast.dump(y):
            return None
    first_ctx, first = sites[0]
    return f"every caller passes the same tensor for `{a.id}` and `{b.id}` ({first_ctx.segment(first, 50)} at line {first.lineno})"


def _in_a_loss(ctx: FileContext, node: ast.AST, depth: int = 0) -> bool:
    """``node`` is part of a loss: inside a function or class named for one (``ContrastiveLoss``,
    ``triplet_loss``), or in a helper that such a function calls."""
    func = ctx.enclosing_function(node)
    cls = ctx.enclosing_class(node)
    names = [getattr(func, "name", ""), getattr(cls, "name", "")]
    if any(_LOSS_WORDS & set(value_origins.words(n)) for n in names if n):
        return True
    if func is None or depth >= 2:
        return False
    return any(_in_a_loss(sctx, site, depth + 1) for sctx, site in value_origins.all_call_sites(ctx, func)[:8])


@register_rule
class SqrtOfSelfDistance(Rule):
    """A pairwise distance of a set with itself, written as `sqrt(sum((a - b) ** 2))`, inside a loss.

    What it finds: the square root (`torch.sqrt`, `.sqrt()`, `** 0.5`, `.pow(0.5)`) of a sum of squared
    differences between two broadcast views of one set of vectors (`x.unsqueeze(1) - x.unsqueeze(0)`,
    `x[:, None] - x[None]`, or a helper `pairwise(a, b)` that every caller calls with the same tensor
    twice), in a loss (a function or class named for one, or a helper it calls). A sqrt with an
    epsilon inside (`+ 1e-12`, `.clamp(min=eps)`), `torch.cdist`, `Tensor.norm`, distances between two
    different sets and code under `torch.no_grad()` are not flagged.
    Why it matters: each vector's distance to itself is exactly 0, and the derivative of `sqrt` at 0
    is infinite; backward multiplies it by the zero derivative of the squared difference and gets
    `0 * inf = NaN`, even where the diagonal is masked out of the loss afterwards. The loss value stays
    finite, but the first `backward()` writes NaN into the gradients and the next step into every
    weight of the embedding network.
    How to confirm: after one `loss.backward()`, check `any(p.grad.isnan().any() for p in model.parameters())`,
    or run the distance function on `torch.randn(4, 8, requires_grad=True)` and backward its sum.
    What to do instead: add an epsilon inside the root (`(d2 + 1e-12).sqrt()` or `d2.clamp_min(1e-12).sqrt()`),
    or use `torch.cdist(x, x)` / `(a - b).norm(dim=-1)`, whose backward returns a zero subgradient at 0.
    """

    id = "sqrt-of-self-distance"
    category = "numerical"
    severity = "error"
    reach = "project"  # the helper's callers may be in other modules
    triggers = ("sqrt", "0.5")

    def check(self, ctx: FileContext):
        halves = [n for n in ctx.nodes_of(ast.BinOp) if isinstance(n.op, ast.Pow) and _is_half(n.right)]
        for node in sorted([*ctx.calls_named("sqrt", "pow"), *halves], key=lambda n: (n.lineno, n.col_offset)):
            operand = _sqrt_operand(ctx, node)
            if operand is None:
                continue
            summed = _summed(ctx, operand)
            squared = _squared(ctx, summed) if summed is not None else None
            found = _self_difference(ctx, squared) if squared is not None else None
            if found is None:
                continue
            diff, a, b = found
            how = _same_set(ctx, a, b)
            if how is None or torch_idioms.grad_off(ctx, node) or not _in_a_loss(ctx, node):
                continue
            yield self.finding(
                ctx,
                node,
                "square root of a pairwise squared distance of a set with itself: each vector's distance to itself is 0, "
                "where sqrt's derivative is infinite, so backward gives 0 * inf = NaN gradients",
                observation=f"{ctx.segment(node, 80)} over {ctx.segment(diff, 60)} (line {diff.lineno}); {how}",
                next_test="Backward the loss once and check any(p.grad.isnan().any() for p in model.parameters()).",
                fix="add an epsilon inside the root ((d2 + 1e-12).sqrt()) or use torch.cdist / Tensor.norm",
            )

"""Moving-average updates: a running value blended with a new one, and the share each side gets.

An exponential moving average, a momentum/teacher encoder, a Polyak (soft) target update, an optimizer's
moment estimate and a running normaliser all do the same thing: ``avg <- keep * avg + take * new`` with
``keep + take = 1``. Code writes it in many ways:

- ``avg.mul_(k).add_(new, alpha=t)``, ``avg.mul_(k)`` then ``avg.add_(t * new)``, ``avg *= k`` then ``avg += t * new``
- ``avg.lerp_(new, t)``, ``torch._foreach_lerp_(avgs, news, t)``, ``torch._foreach_mul_(avgs, k)`` then
  ``torch._foreach_add_(avgs, news, alpha=t)``
- ``avg.copy_(k * avg + t * new)``, ``avg.data = ...``, ``self.avg = ...``, ``shadow[name] = ...``, and a plain
  name carried around a loop (``smooth = k * smooth + t * loss``)
- ``avg.sub_(t * (avg - new))``, ``avg.add_(t * (new - avg))``, ``avg -= t * (avg - new)``

:func:`average_updates` finds them (the average is the value written that also appears on the right); a
plain local name counts only when a loop carries it from one pass to the next (else it is a one-off blend,
such as mixup). :func:`share_values` reads the number a share holds, through :func:`numeric_values.numbers`
and, beyond it, through a helper's ``return`` (``beta = self.get_decay(step)``) and the ceiling of a warm-up
ramp (``min(self.decay, (1 + step) / (10 + step))`` settles at ``self.decay``).
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, keyword, same_tree
from mlsleuth.scan.analysis.numeric_values import MAX_VALUES, numbers, union
from mlsleuth.scan.analysis.settings import default_value

# Views and casts that leave the tensor's values as they are: ``p.data``, ``p.detach()``, ``p.float()``.
_PASSTHROUGH = frozenset({"data", "detach", "float", "to", "clone", "type_as", "half", "bfloat16", "double", "cpu",
                          "cuda", "contiguous"})
_MAX_DEPTH = 8
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


@dataclass(frozen=True)
class AverageUpdate:
    """One update of a running value: ``average <- keep * average + take * new``.

    ``keep`` or ``take`` is None when the code writes only the other one (``lerp_`` names the new value's share,
    the average keeps the rest)."""

    anchor: ast.AST
    average: ast.expr
    new: ast.expr
    keep: ast.expr | None
    take: ast.expr | None


def base(expr: ast.AST) -> ast.AST:
    """``expr`` without the views and casts around it (``p.data.float()`` -> ``p``)."""
    while True:
        if isinstance(expr, ast.Attribute) and expr.attr in _PASSTHROUGH:
            expr = expr.value
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _PASSTHROUGH:
            expr = expr.func.value
        else:
            return expr


def _same(a: ast.AST, b: ast.AST) -> bool:
    return same_tree(base(a), base(b))


def _terms(expr: ast.AST) -> list[ast.AST]:
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return _terms(expr.left) + _terms(expr.right)
    return [expr]


def _scaled_options(term: ast.AST) -> list[tuple[ast.AST, ast.AST | None]]:
    """The readings (value, factor) of ``f * value`` / ``value * f``; factor None for a bare value (a factor of
    1). ``p.data * self.m`` has two readings when both sides could be a scalar: both are kept, a view or cast
    (``.data``, ``.detach()``) marking the value first."""
    if not (isinstance(term, ast.BinOp) and isinstance(term.op, ast.Mult)):
        return [(term, None)]
    options = []
    for value, factor in ((term.right, term.left), (term.left, term.right)):
        if _is_factor(factor) and isinstance(base(value), (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
            options.append((value, factor))
    options.sort(key=lambda o: base(o[1]) is not o[1])  # a factor seen through ``.data`` is less likely a factor
    return options or [(term, None)]


def _scaled(term: ast.AST) -> tuple[ast.AST, ast.AST | None]:
    """The first reading of :func:`_scaled_options`."""
    return _scaled_options(term)[0]


def _is_factor(expr: ast.AST) -> bool:
    """A scalar-looking factor: a number, a name, ``self.x``, ``1 - d``, ``(1.0 - self.decay)``."""
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool)
    if isinstance(expr, (ast.Name, ast.Attribute)):
        return True
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Sub, ast.Add, ast.Mult, ast.Div)):
        return _is_factor(expr.left) and _is_factor(expr.right)
    if isinstance(expr, ast.UnaryOp):
        return _is_factor(expr.operand)
    return False


_ONE = ast.Constant(1.0)


def _blend(expr: ast.AST, average: ast.AST) -> tuple[ast.AST, ast.AST, ast.AST] | None:
    """(new, keep, take) when ``expr`` is ``keep * average + take * new`` (two terms, either order)."""
    terms = _terms(expr)
    if len(terms) == 2:
        found = []
        for first, second in ((terms[0], terms[1]), (terms[1], terms[0])):
            for avg, keep in _scaled_options(first):
                if not _same(avg, average):
                    continue
                for new, take in _scaled_options(second):
                    if not _same(new, average) and (keep is not None or take is not None):
                        found.append((new, keep if keep is not None else _ONE, take if take is not None else _ONE))
        # the reading whose shares are written as ``d`` and ``1 - d``, else the first
        found.sort(key=lambda f: not (complement_of(f[1], f[2]) or complement_of(f[2], f[1])))
        if found:
            return found[0]
    # ``average + t * (new - average)`` / ``average - t * (average - new)``: a step toward the new value
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)) and _same(expr.left, average):
        return _step(expr.right, average, type(expr.op))
    return None


def _step(expr: ast.AST, average: ast.AST, sign: type) -> tuple[ast.AST, None, ast.AST] | None:
    """``t * (new - average)`` (``sign`` Add: the step is added) or ``t * (average - new)`` (Sub)."""
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult)):
        return None
    for factor, diff in ((expr.left, expr.right), (expr.right, expr.left)):
        if not _is_factor(factor) or not (isinstance(diff, ast.BinOp) and isinstance(diff.op, ast.Sub)):
            continue
        first, second = (diff.right, diff.left) if sign is ast.Add else (diff.left, diff.right)
        if _same(first, average) and not _same(second, average):
            return second, None, factor
    return None


def _added(call: ast.Call) -> tuple[ast.AST, ast.AST | None] | None:
    """(new, take) of ``.add_(new, alpha=t)`` / ``.add_(t * new)``."""
    if not call.args:
        return None
    alpha = keyword(call, "alpha")
    if alpha is not None:
        return call.args[0], alpha
    new, take = _scaled(call.args[0])
    return (new, take) if take is not None else None


def _previous_statement(ctx: FileContext, node: ast.AST) -> ast.stmt | None:
    stmt = node
    while stmt is not None and not isinstance(stmt, ast.stmt):
        stmt = ctx.parent(stmt)
    parent = ctx.parent(stmt) if stmt is not None else None
    if parent is None:
        return None
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and stmt in block:
            i = block.index(stmt)
            return block[i - 1] if i > 0 else None
    return None


def _scaled_before(ctx: FileContext, node: ast.AST, average: ast.AST, foreach: bool = False) -> ast.AST | None:
    """The factor of ``average.mul_(k)`` / ``average *= k`` / ``torch._foreach_mul_(average, k)`` just before."""
    prev = _previous_statement(ctx, node)
    if isinstance(prev, ast.Expr) and isinstance(prev.value, ast.Call):
        call = prev.value
        if foreach and call_method(call) == "_foreach_mul_" and len(call.args) == 2 and _same(call.args[0], average):
            return call.args[1]
        if not foreach and call_method(call) == "mul_" and isinstance(call.func, ast.Attribute) and call.args:
            if _same(call.func.value, average):
                return call.args[0]
    if not foreach and isinstance(prev, ast.AugAssign) and isinstance(prev.op, ast.Mult) and _same(prev.target, average):
        return prev.value
    return None


def _from_call(ctx: FileContext, call: ast.Call) -> AverageUpdate | None:
    method = call_method(call)
    if not isinstance(call.func, ast.Attribute):
        return None
    receiver = call.func.value
    if method == "lerp_" and call.args:
        weight = call.args[1] if len(call.args) > 1 else keyword(call, "weight")
        if weight is not None and not _same(call.args[0], receiver):
            return AverageUpdate(call, receiver, call.args[0], None, weight)
    if method == "_foreach_lerp_" and len(call.args) >= 2:
        weight = call.args[2] if len(call.args) > 2 else keyword(call, "weight")
        if weight is not None and not _same(call.args[0], call.args[1]):
            return AverageUpdate(call, call.args[0], call.args[1], None, weight)
    if method == "_foreach_add_" and len(call.args) >= 2 and keyword(call, "alpha") is not None:
        keep = _scaled_before(ctx, call, call.args[0], foreach=True)
        if keep is not None and not _same(call.args[0], call.args[1]):
            return AverageUpdate(call, call.args[0], call.args[1], keep, keyword(call, "alpha"))
    if method == "add_":
        if isinstance(receiver, ast.Call) and call_method(receiver) == "mul_" and receiver.args \
                and isinstance(receiver.func, ast.Attribute):
            average, keep = receiver.func.value, receiver.args[0]
        else:
            average, keep = receiver, None
        if keep is None and keyword(call, "alpha") is None and call.args:
            stepped = _step(call.args[0], average, ast.Add)
            if stepped is not None:
                return AverageUpdate(call, average, stepped[0], None, stepped[2])
        added = _added(call)
        if keep is None:
            keep = _scaled_before(ctx, call, average)
        if added is not None and keep is not None and not _same(added[0], average):
            return AverageUpdate(call, average, added[0], keep, added[1])
    if method == "sub_" and call.args and keyword(call, "alpha") is None:
        stepped = _step(call.args[0], receiver, ast.Sub)
        if stepped is not None:
            return AverageUpdate(call, receiver, stepped[0], None, stepped[2])
    if method == "copy_" and call.args:
        blended = _blend(call.args[0], receiver)
        if blended is not None:
            return AverageUpdate(call, receiver, blended[0], blended[1], blended[2])
    return None


def _self_rooted(expr: ast.AST) -> bool:
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
    return isinstance(expr, ast.Name) and expr.id == "self"


def _loop_carried(ctx: FileContext, name: ast.Name, node: ast.AST) -> bool:
    """A loop around ``node`` carries ``name`` from one pass to the next (it is bound before the loop)."""
    loops = ctx.enclosing_loops(node)
    if not loops:
        return False
    outer = loops[-1]
    scope = ctx.enclosing_function(node) or ctx.tree
    return any(line < outer.lineno for line, _stmt, _val in vo.bindings(ctx, scope).get(name.id, []))


def _carried(ctx: FileContext, target: ast.AST, node: ast.AST) -> bool:
    """``target`` keeps its value from one update to the next: object state (``self.avg``, ``self.shadow[k]``),
    a tensor's storage (``p.data``), or a name (or an item of one) that a loop around ``node`` carries. A one-off
    blend (``x[i] = lam * x[i] + (1 - lam) * x[j]`` outside a loop, ``img.alpha = ...``) is no running value."""
    if _self_rooted(target) or isinstance(target, ast.Attribute) and target.attr == "data":
        return True
    while isinstance(target, ast.Subscript):
        target = target.value
    return isinstance(target, ast.Name) and _loop_carried(ctx, target, node)


def _from_statement(ctx: FileContext, node: ast.AST) -> AverageUpdate | None:
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        if not _carried(ctx, target, node):
            return None
        blended = _blend(node.value, target)
        if blended is not None:
            return AverageUpdate(node, target, blended[0], blended[1], blended[2])
    # ``avg *= k; avg += t * new`` works in place on a tensor: a parameter the caller passes is its running value
    func = ctx.enclosing_function(node)
    in_place = isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and func is not None \
        and node.target.id in vo.function_params(func)
    if isinstance(node, ast.AugAssign) and (in_place or _carried(ctx, node.target, node)):
        if isinstance(node.op, (ast.Add, ast.Sub)):
            stepped = _step(node.value, node.target, type(node.op))
            if stepped is not None:
                return AverageUpdate(node, node.target, stepped[0], None, stepped[2])
        if isinstance(node.op, ast.Add):
            new, take = _scaled(node.value)
            keep = _scaled_before(ctx, node, node.target)
            if take is not None and keep is not None and not _same(new, node.target):
                return AverageUpdate(node, node.target, new, keep, take)
    return None


def average_updates(ctx: FileContext) -> list[AverageUpdate]:
    """Every moving-average update in the file (computed once per file)."""
    cached = ctx.__dict__.get("_moving_average_updates")
    if cached is None:
        cached = []
        for node in ctx.nodes_of(ast.Call, ast.Assign, ast.AugAssign):
            found = _from_call(ctx, node) if isinstance(node, ast.Call) else _from_statement(ctx, node)
            if found is not None:
                cached.append(found)
        ctx.__dict__["_moving_average_updates"] = cached
    return cached


def complement_of(expr: ast.AST | None, other: ast.AST | None) -> bool:
    """``expr`` is written as ``1 - other`` (``1.0 - self.decay``, ``(1 - d)``)."""
    return (isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Sub) and isinstance(expr.left, ast.Constant)
            and expr.left.value in (1, 1.0) and other is not None and same_tree(expr.right, other))


def share_values(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> frozenset[float] | None:
    """The values a share may settle at, or None when any source is unknown.

    :func:`numbers` first; beyond it, a local name is followed to its value, a call of a function of this file to
    its ``return`` values, ``self.x`` to what the class assigns, a setting (``args.tau``, ``cfg.ema.decay``) to its
    default (:func:`settings.default_value`), and ``min(d, ramp)`` to the setting ``d``
    (the ceiling a warm-up ramp settles at)."""
    found = numbers(ctx, expr)
    if found is not None or expr is None or depth > _MAX_DEPTH:
        return found
    if isinstance(expr, ast.Name):
        bound = vo.local_value(ctx, expr)
        return share_values(ctx, bound, depth + 1) if bound is not None and bound is not expr else None
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        cls = ctx.enclosing_class(expr)
        if cls is None or expr.attr in _counted_attributes(ctx, cls):
            return None  # ``self.step += 1``: a counter, not a setting
        values = ctx.self_attributes(cls).get(expr.attr)
        return union(share_values(ctx, v, depth + 1) for v in values) if values else None
    if isinstance(expr, (ast.Attribute, ast.Subscript)):  # a setting: ``args.tau``, ``cfg["ema_decay"]``
        value = default_value(ctx, expr)
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return frozenset({float(value)}) if ok else None  # type: ignore[arg-type]
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        left, right = share_values(ctx, expr.left, depth + 1), share_values(ctx, expr.right, depth + 1)
        if left is None or right is None:
            return None
        op = _OPS[type(expr.op)]
        out = set()
        for a in left:
            for b in right:
                if isinstance(expr.op, ast.Div) and b == 0:
                    return None
                out.add(float(op(a, b)))
        return frozenset(out) if len(out) <= MAX_VALUES else None
    if isinstance(expr, ast.Call):
        if isinstance(expr.func, ast.Name) and expr.func.id == "min" and len(expr.args) >= 2 and not expr.keywords:
            # the ceiling: ``min(d, ramp)`` settles at the setting ``d``, whatever the ramp (arithmetic on the step)
            settings = [a for a in expr.args if not isinstance(_bound(ctx, a), (ast.BinOp, ast.Call))]
            known = [v for v in (share_values(ctx, a, depth + 1) for a in settings) if v is not None]
            return frozenset({min(min(v) for v in known)}) if known else None
        func = ctx.callee_definition(expr)
        if func is not None:
            returns = [n.value for n in ast.walk(func) if isinstance(n, ast.Return) and n.value is not None
                       and ctx.enclosing_function(n) is func]
            return union(share_values(ctx, r, depth + 1) for r in returns) if returns else None
    return None


def _bound(ctx: FileContext, expr: ast.AST) -> ast.AST:
    """What a local name stands for (``value = (1 + step) / (10 + step)``), else ``expr`` itself."""
    bound = vo.local_value(ctx, expr) if isinstance(expr, ast.Name) else None
    return bound if bound is not None else expr


def _counted_attributes(ctx: FileContext, cls: ast.ClassDef) -> frozenset[str]:
    """Attributes of ``self`` that the class changes in place (``self.step += 1``): their values are not the
    ones assigned."""
    cache = ctx.__dict__.setdefault("_counted_attr_cache", {})
    if cls not in cache:
        cache[cls] = frozenset(n.target.attr for n in ctx.subtree(cls) if isinstance(n, ast.AugAssign)
                               and isinstance(n.target, ast.Attribute) and isinstance(n.target.value, ast.Name)
                               and n.target.value.id == "self")
    return cache[cls]


def shares(ctx: FileContext, update: AverageUpdate) -> tuple[frozenset[float], frozenset[float]] | None:
    """(kept, taken): the shares the average keeps and the new value gets, over the values the factors settle
    at other than 0 and 1 (a hard copy or a skipped update, as warm-ups do); None when unknown or not a
    convex blend (the two shares do not add up to 1)."""
    keep, take = update.keep, update.take
    if keep is None or complement_of(take, keep):
        base_values = share_values(ctx, take if keep is None else keep)
        if base_values is None:
            return None
        values = [v for v in base_values if 0.0 < v < 1.0]
        if not values:
            return None
        if keep is None:  # the new value's share is written
            return frozenset(1.0 - v for v in values), frozenset(values)
        return frozenset(values), frozenset(1.0 - v for v in values)
    if take is None or complement_of(keep, take):
        base_values = share_values(ctx, take)
        values = [v for v in (base_values or ()) if 0.0 < v < 1.0]
        if not values:
            return None
        return frozenset(1.0 - v for v in values), frozenset(values)
    kept, taken = share_values(ctx, keep), share_values(ctx, take)
    if kept is None or taken is None or len(kept) != 1 or len(taken) != 1:
        return None
    k, t = next(iter(kept)), next(iter(taken))
    if not (0.0 < k < 1.0 and 0.0 < t < 1.0 and abs(k + t - 1.0) < 1e-6):
        return None
    return kept, taken

"""The ``lambda-lr-returns-learning-rate`` rule: a LambdaLR lambda multiplies in the base learning rate again."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, argument, call_method, constant, dotted
from mlsleuth.scan.analysis.optimizer_params import params_argument
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

_SCHEDULERS = ("LambdaLR", "MultiplicativeLR")
# Calls that pass plain parameters through (no groups with their own lr).
_PLAIN_PARAM_CALLS = frozenset({"parameters", "named_parameters", "filter", "chain", "list", "values"})


def _scheduler_lambda(call: ast.Call) -> ast.expr | None:
    return argument(call, 1, "lr_lambda")


def _functions(ctx: FileContext, expr: ast.expr | None) -> list[ast.AST]:
    """The lambda(s) / function definition(s) ``expr`` names (a list gives one per param group)."""
    if expr is None:
        return []
    if isinstance(expr, (ast.List, ast.Tuple)):
        return [f for e in expr.elts for f in _functions(ctx, e)]
    if isinstance(expr, ast.Lambda):
        return [expr]
    if isinstance(expr, ast.Name):
        bound = value_origins.value(ctx, expr)
        if isinstance(bound, ast.Lambda):
            return [bound]
        func = ctx.nested_function(expr, expr.id) or ctx.module_function(expr.id)
        return [func] if func is not None else []
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        cls = ctx.enclosing_class(expr)
        method = ctx.method(cls, expr.attr) if cls is not None else None
        return [method] if method is not None else []
    return []


def _returned(func: ast.AST) -> list[ast.expr]:
    if isinstance(func, ast.Lambda):
        return [func.body]
    return value_origins.returns(func)


def _factors(expr: ast.expr) -> list[ast.expr]:
    """The multiplicative factors of a returned value, through ``a if c else b`` branches and ``min``/``max``."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        return _factors(expr.left) + _factors(expr.right)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):
        return _factors(expr.left)
    if isinstance(expr, ast.IfExp):
        return _factors(expr.body) + _factors(expr.orelse)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("min", "max", "float"):
        return [f for a in expr.args for f in _factors(a)]
    return [expr]


def _names_learning_rate(expr: ast.expr) -> bool:
    """``lr``, ``args.lr``, ``self.hparams.learning_rate``, ``cfg["base_lr"]``."""
    if isinstance(expr, ast.Subscript):
        key = constant(expr.slice)
        text = key if isinstance(key, str) else None
    else:
        name = dotted(expr)
        text = name.rsplit(".", 1)[-1] if name else None
    if not text:
        return False
    words = value_origins.words(text)
    return "lr" in words or ("learning" in words and "rate" in words)


def _forms(ctx: FileContext, expr: ast.AST) -> set[str]:
    """The expression, and what a name in it was bound to, as comparable dumps."""
    forms = {ast.dump(expr)}
    bound = value_origins.value(ctx, expr) if isinstance(expr, (ast.Name, ast.Attribute)) else None
    if bound is not None and bound is not expr:
        forms.add(ast.dump(bound))
    return forms


def _derived_from(ctx: FileContext, factor: ast.expr, source: ast.AST | None) -> bool:
    """The initial lr ``source`` is (or is built from) the same value as ``factor``."""
    if source is None:
        return False
    wanted = _forms(ctx, factor)
    candidates = [source]
    bound = value_origins.value(ctx, source) if isinstance(source, (ast.Name, ast.Attribute)) else None
    if bound is not None and bound is not source:
        candidates.append(bound)
    for cand in candidates:
        for node in ast.walk(cand):
            if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)) and _forms(ctx, node) & wanted:
                return True
    return False


def _group_lr_sources(ctx: FileContext, construction: ast.Call) -> list[ast.AST] | None:
    """What the param groups' initial lrs are built from (the groups that can be read); None when none can."""
    lr = argument(construction, 1, "lr")
    params = params_argument(construction)
    if params is None:
        return None
    sources: list[ast.AST] = []
    for part in _list_parts(ctx, params):
        sources += _part_sources(ctx, part, lr)
    return sources or None


def _list_parts(ctx: FileContext, expr: ast.AST, depth: int = 0) -> list[ast.AST]:
    """``a + b + [..]``: the lists concatenated into the params argument (names followed to their value)."""
    if depth > 4:
        return []
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return _list_parts(ctx, expr.left, depth + 1) + _list_parts(ctx, expr.right, depth + 1)
    if isinstance(expr, ast.Name):
        bound = value_origins.value(ctx, expr)
        if bound is not None and bound is not expr:
            return _list_parts(ctx, bound, depth + 1)
    return [expr]


def _part_sources(ctx: FileContext, part: ast.AST, lr: ast.expr | None) -> list[ast.AST]:
    if isinstance(part, (ast.List, ast.Tuple)) and part.elts and all(isinstance(e, ast.Dict) for e in part.elts):
        sources: list[ast.AST] = []
        for group in part.elts:
            keys = {constant(k): v for k, v in zip(group.keys, group.values) if k is not None}  # type: ignore[union-attr]
            if "lr" in keys:
                sources.append(keys["lr"])
            elif lr is not None:
                sources.append(lr)  # a group without its own "lr" starts from the optimizer's
        return sources
    if any(isinstance(n, (ast.Dict, ast.DictComp)) for n in ast.walk(part)):
        return []
    calls = [n for n in ast.walk(part) if isinstance(n, ast.Call)]
    helpers = [c for c in calls if not _plain_call(ctx, c)]
    if not helpers:
        return [lr] if lr is not None and calls else []
    if len(helpers) == 1 and helpers[0] is part:
        # groups built by a helper: it sets the group lrs from the arguments it is given
        return [*part.args, *(k.value for k in part.keywords)]  # type: ignore[attr-defined]
    return []


def _plain_call(ctx: FileContext, call: ast.Call) -> bool:
    name = call_method(call) or (call.func.id if isinstance(call.func, ast.Name) else "")
    return name in _PLAIN_PARAM_CALLS or (value_origins.normalize(ctx.qualname(call)) or "").endswith("itertools.chain")


@register_rule
class LambdaLrReturnsLearningRate(Rule):
    """A `LambdaLR` lambda returns a learning rate, not a factor.

    What it finds: `LambdaLR(optimizer, lr_lambda)` (or `MultiplicativeLR`) whose lambda / function
    returns a product that contains the learning rate the param groups already start from:
    `lambda x: args.lr * (1 + g * x) ** -d` with `SGD(model.parameters(), lr=args.lr)`, a warmup
    `min(step / w, 1) * self.hparams.lr` in `configure_optimizers`, a nested `def lr_lambda(step)`
    returning `base_lr * ...`, groups built as dicts (`{"params": ..., "lr": lr}`, or without `"lr"`
    so they take the optimizer's) or by a helper given the same lr (`net.get_parameters(base_lr=args.lr)`).
    Why it matters: LambdaLR sets each group's lr to `initial_lr * lr_lambda(epoch)`. The lambda is a
    multiplier; when it returns a learning rate the run trains at lr squared (1e-4 instead of 1e-2,
    1e-6 instead of 1e-3) for its whole length, silently 100-1000x too slow.
    How to confirm: print `scheduler.get_last_lr()` (or `optimizer.param_groups[0]["lr"]`) after
    building the scheduler: it is lr * lr, not lr.
    What to do instead: return only the factor (`lambda x: (1 + g * x) ** -d`); or, when the lambda
    must carry the lr, build the groups with relative factors (`"lr": 0.1`, `"lr": 1.0`).
    """

    id = "lambda-lr-returns-learning-rate"
    category = "hyperparameter"
    severity = "warning"
    reach = "file"
    triggers = _SCHEDULERS
    requires = ((call_to(*_SCHEDULERS),),)

    def check(self, ctx: FileContext):
        if not ctx.imports_any("torch"):
            return
        for call in ctx.calls_named(*_SCHEDULERS):
            qual = value_origins.normalize(ctx.qualname(call)) or ""
            if qual.rsplit(".", 1)[-1] not in _SCHEDULERS or not qual.startswith("torch."):
                continue
            opt = argument(call, 0, "optimizer")
            construction = value_origins.value(ctx, opt) if opt is not None else None
            if not isinstance(construction, ast.Call):
                continue
            sources = _group_lr_sources(ctx, construction)
            if not sources:
                continue
            for func in _functions(ctx, _scheduler_lambda(call)):
                params = set(value_origins.function_params(func))
                hit = self._lr_factor(ctx, func, params, sources)
                if hit is not None:
                    name = ctx.segment(hit, 40)
                    yield self.finding(
                        ctx,
                        hit,
                        f"the {qual.rsplit('.', 1)[-1]} lambda multiplies in `{name}`, the learning rate the param groups "
                        "already start from; LambdaLR multiplies each group's initial lr by what the lambda returns, so "
                        "the run trains at lr squared",
                        next_test="Print scheduler.get_last_lr() right after building the scheduler: lr*lr instead of lr.",
                    )
                    break

    @staticmethod
    def _lr_factor(ctx, func, params, sources):
        for ret in sorted(_returned(func), key=lambda r: (r.lineno, r.col_offset)):
            for factor in _factors(ret):
                if isinstance(factor, ast.Name) and factor.id in params:
                    continue
                if not _names_learning_rate(factor):
                    continue  # a literal (0.1) is as often a decay factor as a rate: only named rates count
                for source in sources:
                    if _derived_from(ctx, factor, source):
                        return factor
        return None

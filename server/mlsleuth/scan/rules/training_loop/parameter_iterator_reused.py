"""The ``parameter-iterator-reused`` rule: a one-shot iterator of parameters read twice; the second read sees nothing."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method
from mlsleuth.scan.registry import Rule, register_rule

# Calls whose result is a one-shot iterator (a generator, a filter/map object, ...).
_ONE_SHOT_METHODS = {"parameters", "named_parameters"}
_ONE_SHOT_FUNCTIONS = {"filter", "map", "iter", "itertools.chain", "itertools.islice"}
# Clipping methods of training wrappers (accelerate's Accelerator, Lightning's Fabric) that take parameters.
_CLIPPING_METHODS = {"clip_grad_norm_", "clip_grad_value_"}
# Calls that read an iterable argument to its end.
_CONSUMING_FUNCTIONS = {"list", "tuple", "set", "sorted", "sum", "any", "all", "max", "min", "dict", "enumerate",
                        "torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_value_",
                        "torch.nn.utils.parameters_to_vector", "torch.nn.utils.vector_to_parameters",
                        "torch.nn.utils.get_total_norm", "torch.nn.utils.clip_grads_with_norm_"}


def _one_shot(ctx: FileContext, expr: ast.AST | None) -> bool:
    """A one-shot iterator of parameters: ``model.parameters()``, ``filter(lambda p: p.requires_grad,
    model.parameters())``, ``(p for p in params if ...)``, ``itertools.chain(a.parameters(), b.parameters())``."""
    if isinstance(expr, ast.Call) and call_method(expr) in _ONE_SHOT_METHODS and isinstance(expr.func, ast.Attribute):
        return not expr.args or call_method(expr) == "named_parameters"
    if isinstance(expr, ast.GeneratorExp):
        iterable = expr
    elif isinstance(expr, ast.Call) and (
        isinstance(expr.func, ast.Name) and expr.func.id in _ONE_SHOT_FUNCTIONS and expr.func.id not in ctx.imports
        or value_origins.normalize(ctx.qualname(expr)) in _ONE_SHOT_FUNCTIONS
    ):
        iterable = expr
    else:
        return False
    return "param" in ctx.segment(iterable, 400)  # an iterator over parameters, not over data


def _consumer(ctx: FileContext, use: ast.Name) -> str | None:
    """How a read of the name runs the iterator to its end (``for`` loop, ``list(...)``, an optimizer...), or None."""
    parent = ctx.parent(use)
    if isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is use:
        return "a loop"
    if isinstance(parent, ast.Call) and use in parent.args:
        qual = value_origins.normalize(ctx.qualname(parent)) or ""
        if qual in _CONSUMING_FUNCTIONS or (isinstance(parent.func, ast.Name) and parent.func.id in _CONSUMING_FUNCTIONS):
            return f"{ctx.segment(parent.func, 40)}(...)"
        if qual.startswith("torch.optim.") and parent.args and parent.args[0] is use:
            return f"{ctx.segment(parent.func, 40)}(...)"
        if call_method(parent) in _CLIPPING_METHODS and isinstance(parent.func, ast.Attribute) and parent.args[0] is use:
            return f"{ctx.segment(parent.func, 40)}(...)"  # accelerator.clip_grad_norm_, fabric.clip_gradients
    if isinstance(parent, ast.keyword) and parent.arg in ("params", "parameters"):
        call = ctx.parent(parent)
        if isinstance(call, ast.Call) and (value_origins.normalize(ctx.qualname(call)) or "").startswith(
            ("torch.optim.", "torch.nn.utils.clip_grad")
        ):
            return f"{ctx.segment(call.func, 40)}(...)"
    return None


def _reads(ctx: FileContext, scope: ast.AST, name: str, after: int) -> list[ast.Name]:
    """Loads of ``name`` in ``scope`` after line ``after``, up to its next rebinding."""
    stores = sorted(
        n.lineno for n in ctx.walk_scope(scope)
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) and n.lineno > after
    )
    stop = stores[0] if stores else float("inf")
    return sorted(
        (n for n in ctx.walk_scope(scope)
         if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and after < n.lineno <= stop),
        key=lambda n: (n.lineno, n.col_offset),
    )


def _in_loop_between(ctx: FileContext, first: ast.AST, scope: ast.AST) -> bool:
    """``first`` sits in a loop of ``scope``: one textual read runs again on every pass."""
    node = ctx.parent(first)
    while node is not None and node is not scope:
        if isinstance(node, (ast.For, ast.While)) and not (isinstance(node, ast.For) and node.iter is first):
            return True
        node = ctx.parent(node)
    return False


def _consumed_twice(ctx: FileContext, scope: ast.AST, name: str, bound_at: int) -> tuple[list[str], ast.Name] | None:
    """(how it is read, the second read) when ``name`` is run to its end at least twice after its binding."""
    reads = _reads(ctx, scope, name, bound_at)
    for use in list(reads):  # `params_to_clip = lora_params`: the alias is the same exhausted iterator
        holder = ctx.parent(use)
        if isinstance(holder, ast.Assign) and holder.value is use and len(holder.targets) == 1 and isinstance(holder.targets[0], ast.Name):
            reads += _reads(ctx, scope, holder.targets[0].id, holder.lineno)
    reads.sort(key=lambda n: (n.lineno, n.col_offset))
    consumed = [(use, how) for use in reads if (how := _consumer(ctx, use)) is not None]
    if len(consumed) >= 2:
        return [h for _, h in consumed], consumed[1][0]
    if len(consumed) == 1 and _in_loop_between(ctx, consumed[0][0], scope) and not _rebound_in_same_loop(ctx, consumed[0][0], name):
        return [consumed[0][1], "the same read on the next pass of the loop"], consumed[0][0]
    return None


def _rebound_in_same_loop(ctx: FileContext, use: ast.Name, name: str) -> bool:
    node = ctx.parent(use)
    while node is not None and not isinstance(node, (ast.For, ast.While)):
        node = ctx.parent(node)
    if node is None:
        return True
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(node))


def _local_iterators(ctx: FileContext) -> Iterator[tuple[ast.AST, ast.Assign, str]]:
    """(scope, binding, name) for ``name = <one-shot iterator>`` in any function or at module level."""
    for node in ctx.nodes_of(ast.Assign):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and _one_shot(ctx, node.value)
        ):
            yield ctx.enclosing_function(node) or ctx.tree, node, node.targets[0].id


@register_rule
class ParameterIteratorReused(Rule):
    """A one-shot iterator of parameters (`model.parameters()`, a generator) read twice.

    What it finds: a generator such as `model.parameters()`, `filter(lambda p: p.requires_grad, ...)` or
    `(p for p in ...)` bound to a name, or passed to a helper, and then run to its end twice: two `for`
    loops over it, an optimizer built from it and then `clip_grad_norm_` on it, a helper that sums the
    squared gradient norms in one loop and rescales in a second.
    Why it matters: a generator is exhausted after the first pass. The second reader gets nothing and
    says nothing: `clip_grad_norm_` clips no parameter and returns 0, the rescaling loop never runs, an
    optimizer built second has an empty parameter list (that one raises), a norm computed second is 0.
    Training runs on without the clipping or the update it was written to have.
    How to confirm: print `len(list(x))` right before the second use: it is 0. Or print the value the
    second use returns (the total norm of `clip_grad_norm_` is 0.0).
    What to do instead: materialise it once: `params = list(model.parameters())` (or `[p for p in ...]`),
    or call `model.parameters()` again at each use.
    """

    id = "parameter-iterator-reused"
    category = "training-loop"
    severity = "warning"
    reach = "project"
    triggers = ("parameters(", "filter(", "named_parameters(", " for ")

    def check(self, ctx: FileContext):
        for scope, bind, name in _local_iterators(ctx):
            found = _consumed_twice(ctx, scope, name, bind.lineno)
            if found is None:
                continue
            hows, second = found
            yield self.finding(
                ctx,
                second,
                f"`{name}` is a one-shot iterator ({ctx.segment(bind.value, 50)}, line {bind.lineno}) read to its end "
                f"by {hows[0]} and again by {hows[1]}: the second read sees no parameters and does nothing",
                next_test=f"Print len(list({name})) right before line {second.lineno}: 0 confirms it.",
            )
        yield from self._helper_reads_twice(ctx)

    def _helper_reads_twice(self, ctx: FileContext):
        """``helper(model.parameters())`` where ``helper`` loops over that parameter twice."""
        for call in ctx.calls():
            if not any(_one_shot(ctx, a) for a in call.args):
                continue
            target = value_origins.helper_definition(ctx, call)
            if target is None:
                continue
            hctx, func = target
            params = value_origins.function_params(func)
            for arg in call.args:
                if not _one_shot(ctx, arg):
                    continue
                param = next((p for p in params if value_origins.argument_for(call, func, p) is arg), None)
                if param is None:
                    continue
                found = _consumed_twice(hctx, func, param, func.lineno)
                if found is None:
                    continue
                hows, second = found
                where = f"line {second.lineno}" if hctx is ctx else f"{hctx.display_path}, line {second.lineno}"
                yield self.finding(
                    ctx,
                    arg,
                    f"{ctx.segment(arg, 50)} is a one-shot iterator, and {func.name}() reads its `{param}` twice "
                    f"({hows[0]}, then {hows[1]} at {where}): the second pass sees no parameters and does nothing",
                    next_test=f"Print len(list({param})) at the top of the second loop in {func.name}(): 0 confirms it.",
                )

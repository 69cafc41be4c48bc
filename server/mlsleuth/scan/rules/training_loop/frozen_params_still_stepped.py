"""The ``frozen-params-still-stepped`` rule: parameters frozen after the optimizer was built keep moving."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, argument, call_method, constant, keyword
from mlsleuth.scan.analysis.training_step_model import loop_model
from mlsleuth.scan.registry import Rule, register_rule

# optimizers whose step moves a parameter whose gradient is a zero tensor: Adam's moments, AdamW's decay
_STATEFUL = frozenset({"Adam", "AdamW", "NAdam", "RAdam", "Adamax", "Lion", "LAMB", "Lamb", "FusedAdam", "AdamW8bit"})
# optimizers that do so only with momentum or weight decay
_WITH_MOMENTUM_OR_DECAY = frozenset({"SGD", "RMSprop", "Adagrad", "Adadelta", "ASGD"})
# gradients kept as zero tensors instead of None: the step still visits the frozen parameters
_KEEPS_GRADS = re.compile(r"set_to_none\s*=\s*False|\.grad(\.data)?\.zero_\(\)")
_CLEARS_GRAD = re.compile(r"\.grad\s*=\s*None")
_PARAMETER_LOOPS = frozenset({"parameters", "named_parameters", "children", "named_children", "modules", "named_modules"})
_TRAINS = re.compile(r"fit|train|step|epoch|run|learn|loop", re.IGNORECASE)


def _moves_zero_grad_params(name: str, call: ast.Call) -> bool:
    if name in _STATEFUL:
        return True
    if name not in _WITH_MOMENTUM_OR_DECAY:
        return False
    for kw in ("momentum", "weight_decay"):
        value = keyword(call, kw)
        if value is not None and constant(value) not in (0, 0.0, None):
            return True
    return False


def _filters_trainable(call: ast.Call) -> bool:
    params = argument(call, 0, "params")
    return params is not None and any(isinstance(n, ast.Attribute) and n.attr == "requires_grad" for n in ast.walk(params))


def _sets_false(node: ast.AST) -> bool:
    """``x.requires_grad = False`` or ``x.requires_grad_(False)``."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute) \
            and node.targets[0].attr == "requires_grad":
        return constant(node.value) is False
    if isinstance(node, ast.Call) and call_method(node) == "requires_grad_":
        return constant(argument(node, 0, "requires_grad")) is False
    return False


def _helper_freezes(hctx: FileContext, func: ast.AST, call: ast.Call) -> bool:
    """The helper sets ``requires_grad`` to False, or to ``not flag`` where the call asks for the freeze
    (``set_freeze(model, names, freeze=True)``, or the flag's default is True)."""
    for node in hctx.walk_scope(func):
        if _sets_false(node):
            return True
        value = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute) \
                and node.targets[0].attr == "requires_grad":
            value = node.value
        elif isinstance(node, ast.Call) and call_method(node) == "requires_grad_":
            value = argument(node, 0, "requires_grad")
        if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not) and isinstance(value.operand, ast.Name):
            param = value.operand.id
            if param not in value_origins.function_params(func):
                continue
            passed = value_origins.argument_for(call, func, param)
            flag = constant(passed) if passed is not None else constant(value_origins.parameter_default(func, param))
            if flag is True:
                return True
    return False


def _clears_grads(hctx: FileContext, func: ast.AST) -> bool:
    return any(_CLEARS_GRAD.search(hctx.segment(node, 400)) for node in hctx.walk_scope(func)
               if isinstance(node, ast.Assign))


@register_rule
class FrozenParamsStillStepped(Rule):
    """Parameters frozen after the optimizer was built keep moving.

    What it finds: in one function, an optimizer built over a model's parameters without filtering on
    `requires_grad` — Adam/AdamW (any stateful optimizer), or SGD/RMSprop with momentum or weight decay —
    then, later, a freeze of some of those parameters (`p.requires_grad = False`, `requires_grad_(False)`,
    or a helper of the project that does it, `set_freeze(model, ["encoder"], freeze=True)`), training going on
    with the same optimizer (or the optimizer built in a class's `__init__` and the freeze in a later method), and the project keeping gradients as zero tensors
    (`zero_grad(set_to_none=False)`, `p.grad.zero_()`). A new optimizer built after the freeze, or
    `p.grad = None` set when freezing, is left alone.
    Why it matters: `requires_grad=False` only stops new gradients. The frozen parameters keep the `.grad`
    tensor they had, which zeroing leaves as zeros rather than None, so the optimizer still steps them:
    momentum buffers, Adam moments and weight decay move the "frozen" weights every step, and a task the
    frozen part served silently degrades.
    How to confirm: copy the frozen parameters right after the freeze and compare after a few steps:
    `(p - p0).abs().max()` is not 0.
    What to do instead: build a new optimizer over the still-trainable parameters after freezing
    (`filter(lambda p: p.requires_grad, model.parameters())`), or set `p.grad = None` when freezing and
    zero gradients with `set_to_none=True` (the default).
    """

    id = "frozen-params-still-stepped"
    category = "training-loop"
    severity = "warning"
    reach = "project"
    triggers = ("requires_grad", "freez")
    requires = (("optim", "AdamW", "Adam"),)

    def check(self, ctx: FileContext):
        model = loop_model(ctx)
        optimizers = [o for o in model.optimizers() if o.construction is not None and o.ctx in (None, ctx)]
        for opt in optimizers:
            call = opt.construction
            if not _moves_zero_grad_params(opt.name, call) or _filters_trainable(call):
                continue
            scope = ctx.enclosing_function(call) or ctx.tree
            rebuilt = [o.construction.lineno for o in optimizers if o is not opt and o.construction.lineno > call.lineno
                       and (ctx.enclosing_function(o.construction) or ctx.tree) is scope]
            params = argument(call, 0, "params")
            owners = {value_origins.root_name(n) for n in ast.walk(params) if isinstance(n, ast.Call)} - {None} \
                if params is not None else set()
            freeze = self._first_freeze(ctx, scope, call.lineno, owners)
            if freeze is None:
                freeze = self._in_later_method(ctx, call, scope, owners, optimizers)
            elif any(line > freeze.lineno for line in rebuilt) or not self._trains_after(ctx, scope, freeze):
                continue
            if freeze is None or not _keeps_grads(ctx):
                continue
            yield self.finding(
                ctx,
                freeze,
                f"parameters are frozen here, after the {opt.name} optimizer at line {call.lineno} was built over them;"
                " the project zeroes gradients without setting them to None, so the frozen parameters keep a zero `.grad`"
                f" and {opt.name}'s momentum/moments and weight decay keep moving them",
                observation=ctx.segment(freeze, 120),
                next_test="copy a frozen parameter right after this line and compare it after a few steps: it has changed",
            )

    def _in_later_method(self, ctx: FileContext, call: ast.Call, scope: ast.AST, owners: set[str], optimizers) -> ast.AST | None:
        """The optimizer is built in ``__init__`` over the instance's model (``self.model.parameters()``, or a
        parameter stored as ``self.model``); another method of the class freezes parameters of the instance, and
        ``__init__`` does not call it before building the optimizer, nor does it build an optimizer again."""
        cls = ctx.enclosing_class(call)
        if cls is None or getattr(scope, "name", None) != "__init__" or ctx.parent(scope) is not cls:
            return None
        stored = {a.id for v in ctx.self_attributes(cls).values() for a in v if isinstance(a, ast.Name)}
        if "self" not in owners and not owners & stored & set(value_origins.function_params(scope)):
            return None
        called_first = {c.func.attr for c in ctx.calls(scope) if c.lineno < call.lineno and isinstance(c.func, ast.Attribute)}
        builders = {ctx.enclosing_function(o.construction) for o in optimizers}
        for method in cls.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or method is scope or method.name in called_first:
                continue
            if method in builders or any(isinstance(c.func, ast.Attribute) and ctx.method(cls, c.func.attr) in builders
                                         for c in ctx.calls(method)):
                continue
            freeze = self._first_freeze(ctx, method, 0, {"self"})
            if freeze is not None:
                return freeze
        return None

    @staticmethod
    def _first_freeze(ctx: FileContext, scope: ast.AST, after: int, owners: set[str]) -> ast.AST | None:
        """The first freeze after line ``after`` of parameters of ``owners`` (the optimizer's models), outside
        loops (a freeze toggled every step, like a GAN's discriminator, is another story)."""
        for node in ctx.walk_scope(scope):
            if getattr(node, "lineno", 0) <= after or not owners:
                continue
            if not isinstance(node, (ast.Assign, ast.Call)) or _loops_in(ctx, node):
                continue
            if _sets_false(node) and _frozen_owner(ctx, node) in owners:
                if _clears_grads(ctx, scope):
                    return None
                return node
            if isinstance(node, ast.Call) and call_method(node) != "requires_grad_" \
                    and any(value_origins.root_name(a) in owners for a in [*node.args, *(k.value for k in node.keywords)]):
                found = value_origins.helper_definition(ctx, node)
                if found is not None and _helper_freezes(found[0], found[1], node):
                    return None if _clears_grads(found[0], found[1]) else node
        return None

    @staticmethod
    def _trains_after(ctx: FileContext, scope: ast.AST, freeze: ast.AST) -> bool:
        for node in ctx.walk_scope(scope):
            if isinstance(node, ast.Call) and node.lineno > freeze.lineno:
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if _TRAINS.search(name):
                    return True
        return False


def _loops_in(ctx: FileContext, node: ast.AST) -> bool:
    """A loop around ``node`` in its function, other than a loop over parameters or submodules."""
    for loop in ctx.enclosing_loops(node):
        if isinstance(loop, ast.For) and call_method(loop.iter) in _PARAMETER_LOOPS:
            continue
        return True
    return False


def _frozen_owner(ctx: FileContext, node: ast.AST) -> str | None:
    """The model a direct freeze acts on: ``model`` for ``for p in model.encoder.parameters(): p.requires_grad = False``
    or ``model.encoder.requires_grad_(False)``."""
    target = node.targets[0].value if isinstance(node, ast.Assign) else node.func.value  # type: ignore[attr-defined]
    if isinstance(target, ast.Name):
        for loop in ctx.enclosing_loops(node):
            if isinstance(loop, ast.For) and call_method(loop.iter) in _PARAMETER_LOOPS:
                return value_origins.root_name(loop.iter)
    return value_origins.root_name(target)


def _keeps_grads(ctx: FileContext) -> bool:
    if _KEEPS_GRADS.search(ctx.source):
        return True
    index = ctx.project
    return index is not None and index.package_matches(ctx, _KEEPS_GRADS)

"""The ``unfrozen-after-optimizer-built`` rule: parameters are unfrozen after the optimizer was built from the trainable ones only."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.training_step_model import loop_model
from mlsleuth.scan.registry import Rule, register_rule


def _filters_trainable(call: ast.Call) -> bool:
    """``filter(lambda p: p.requires_grad, ...)`` or ``[p for p in ... if p.requires_grad]`` in the params."""
    for node in ast.walk(call):
        if isinstance(node, ast.Attribute) and node.attr == "requires_grad" and isinstance(node.ctx, ast.Load):
            return True
    return False


@register_rule
class UnfrozenAfterOptimizerBuilt(Rule):
    """Parameters are unfrozen after the optimizer was built from the trainable ones only.

    What it finds: an optimizer built from `filter(lambda p: p.requires_grad, model.parameters())` (or
    a comprehension keeping `p.requires_grad`), followed later in the same function by
    `requires_grad = True` / `requires_grad_(True)` on parameters, without a new optimizer or
    `add_param_group`; also across the methods of one class: the optimizer built that way in
    `configure_optimizers` and the unfreeze in a hook that runs during fit (`on_train_epoch_start`,
    `training_step`), or built in `__init__` and unfrozen in another method that `__init__` does not call
    first.
    Why it matters: the optimizer's parameter list was fixed when it was built. Parameters unfrozen
    afterwards (gradual unfreezing, "train the backbone after epoch 5") now receive gradients but are
    never updated: the second phase of fine-tuning silently trains only the head.
    How to confirm: after the unfreeze, compare `sum(p.numel() for g in optimizer.param_groups for p
    in g['params'])` with `sum(p.numel() for p in model.parameters() if p.requires_grad)`: the
    optimizer holds fewer.
    What to do instead: build the optimizer over all parameters from the start (frozen ones simply get
    no gradient), rebuild it after unfreezing, or add the unfrozen parameters with
    `optimizer.add_param_group({'params': ...})`.
    """

    id = "unfrozen-after-optimizer-built"
    category = "training-loop"
    severity = "warning"
    triggers = ("requires_grad",)
    requires = (("optim", "AdamW", "Adafactor"),)  # an optimizer construction (see optimizer-misses-parameters)

    def check(self, ctx):
        model = loop_model(ctx)
        if any(isinstance(c.func, ast.Attribute) and c.func.attr == "add_param_group" for c in ctx.calls()):
            return
        for opt in model.optimizers():
            call = opt.construction
            if call is None or not _filters_trainable(call):
                continue
            scope = ctx.enclosing_function(call) or ctx.tree
            yield from self._in_other_methods(ctx, call, scope, model)
            later_opts = [o for o in model.optimizers() if o.construction is not None and o.construction.lineno > call.lineno
                          and (ctx.enclosing_function(o.construction) or ctx.tree) is scope]
            for node in ctx.walk_scope(scope):
                if getattr(node, "lineno", 0) <= call.lineno:
                    continue
                if self._unfreezes(node):
                    if any(o.construction.lineno > node.lineno for o in later_opts if o.construction is not None):
                        break  # the optimizer is rebuilt after unfreezing
                    yield self.finding(
                        ctx,
                        node,
                        f"parameters are unfrozen at line {node.lineno}, after the optimizer at line {call.lineno} was built"
                        " from the parameters that required grad at that time: the unfrozen ones are never updated",
                        next_test="after the unfreeze, compare the parameter count in optimizer.param_groups with the count"
                        " of parameters that require grad: the optimizer holds fewer",
                    )
                    break

    def _in_other_methods(self, ctx, call: ast.Call, scope: ast.AST, model):
        """The optimizer is built in ``configure_optimizers`` or ``__init__`` of a class; another method of the class
        that runs later unfreezes parameters."""
        cls = ctx.enclosing_class(call)
        if cls is None or ctx.parent(scope) is not cls or scope.name not in ("configure_optimizers", "__init__"):
            return
        builds = [o.construction for o in model.optimizers() if o.construction is not None and ctx.enclosing_class(o.construction) is cls]
        called_first = {c.func.attr for c in ctx.calls(scope) if c.lineno < call.lineno and isinstance(c.func, ast.Attribute)
                        and isinstance(c.func.value, ast.Name) and c.func.value.id == "self"}
        for method in cls.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or method is scope:
                continue
            if scope.name == "configure_optimizers" and not _runs_during_fit(method.name):
                continue
            if scope.name == "__init__" and method.name in called_first:
                continue
            builders = {ctx.enclosing_function(b) for b in builds}
            if method in builders or _rebuilds_optimizers(ctx, method) or any(
                    isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name) and c.func.value.id == "self"
                    and ctx.method(cls, c.func.attr) in builders for c in ctx.calls(method)):
                continue  # the method builds an optimizer again (itself or through a method of the class)
            node = next((n for n in ctx.walk_scope(method) if self._unfreezes(n)), None)
            if node is not None:
                yield self.finding(
                    ctx,
                    node,
                    f"parameters are unfrozen in `{method.name}`, but the optimizer was built in `{scope.name}` (line"
                    f" {call.lineno}) from the parameters that required grad at that time: the unfrozen ones are never updated",
                    next_test="after the unfreeze, compare the parameter count in optimizer.param_groups with the count"
                    " of parameters that require grad: the optimizer holds fewer",
                )

    @staticmethod
    def _unfreezes(node: ast.AST) -> bool:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value is True:
            return any(isinstance(t, ast.Attribute) and t.attr == "requires_grad" for t in node.targets)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "requires_grad_":
            flag = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "requires_grad"), None)
            return flag is None or (isinstance(flag, ast.Constant) and flag.value is True)
        return False


def _runs_during_fit(name: str) -> bool:
    """A Lightning hook or step that runs after ``configure_optimizers`` (``on_train_epoch_start``, ``training_step``)."""
    return name.startswith("on_") and name not in ("on_fit_start", "on_pretrain_routine_start") \
        or name in ("training_step", "validation_step", "on_before_optimizer_step")


def _rebuilds_optimizers(ctx, method: ast.AST) -> bool:
    """The method has Lightning build the optimizers again (``self.trainer.strategy.setup_optimizers(...)``) or
    calls ``configure_optimizers`` itself."""
    return any(isinstance(c.func, ast.Attribute) and c.func.attr in ("setup_optimizers", "configure_optimizers")
               for c in ctx.calls(method))

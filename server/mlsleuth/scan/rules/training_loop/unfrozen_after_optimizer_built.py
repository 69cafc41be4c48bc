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
    `add_param_group`.
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

    @staticmethod
    def _unfreezes(node: ast.AST) -> bool:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value is True:
            return any(isinstance(t, ast.Attribute) and t.attr == "requires_grad" for t in node.targets)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "requires_grad_":
            flag = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "requires_grad"), None)
            return flag is None or (isinstance(flag, ast.Constant) and flag.value is True)
        return False

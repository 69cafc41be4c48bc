"""The ``functional-dropout-always-on`` rule: `F.dropout` inside a module without `training=self.training`."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext, keyword
from mlsleuth.scan.analysis.torch_idioms import grad_off, is_module_class
from mlsleuth.scan.prefilter import MODULE_CLASS, word
from mlsleuth.scan.registry import Rule, register_rule

_FUNCTIONAL_DROPOUT = {
    "torch.nn.functional.dropout",
    "torch.nn.functional.dropout1d",
    "torch.nn.functional.dropout2d",
    "torch.nn.functional.dropout3d",
    "torch.nn.functional.alpha_dropout",
    "torch.nn.functional.feature_alpha_dropout",
}


def _calls_named(ctx: FileContext, fragment: str) -> list[ast.Call]:
    """Calls whose function name contains ``fragment`` (a cheap filter before resolving aliases)."""
    found = []
    for node in ctx.all_nodes:
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else (func.id if isinstance(func, ast.Name) else "")
            if fragment in name:
                found.append(node)
    return found


def _guarded_by_training(ctx: FileContext, call: ast.Call) -> bool:
    """``if self.training and p > 0: x = F.dropout(x, p)``: the call sits in the branch that runs in training
    mode only (an ``if`` whose test requires ``self.training``, alone or in an ``and``)."""
    for anc in ctx.ancestors(call):
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return False
        if isinstance(anc, (ast.If, ast.IfExp)) and _requires_training(anc.test) and \
                any(call is n for stmt in ([anc.body] if isinstance(anc, ast.IfExp) else anc.body) for n in ast.walk(stmt)):
            return True
    return False


def _requires_training(test: ast.AST) -> bool:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_requires_training(v) for v in test.values)
    return isinstance(test, ast.Attribute) and test.attr == "training"


@register_rule
class FunctionalDropoutAlwaysOn(Rule):
    """`F.dropout` inside a module without `training=self.training`.

    What it finds: a call to `torch.nn.functional.dropout` (or `dropout2d`, `alpha_dropout`, ...) in a
    method of an `nn.Module` subclass that does not pass the `training` argument. Not flagged: a call in a
    branch that runs only in training mode (`if self.training and p > 0:`), or in a method that runs with
    gradients off (a sampler's `@torch.no_grad()` step that drops noise on purpose).
    Why it matters: unlike the `nn.Dropout` module, the functional form does not know about
    `model.eval()`: its `training` argument defaults to True. Dropout then stays active at evaluation
    and inference, so predictions are random and accuracy is lower than the model's real quality.
    How to confirm: in eval mode, run the same input through the model twice under `torch.no_grad()`:
    the outputs differ.
    What to do instead: pass `training=self.training` (`F.dropout(x, p, training=self.training)`), or
    use an `nn.Dropout` submodule.
    """

    id = "functional-dropout-always-on"
    category = "evaluation"
    severity = "error"
    triggers = ("dropout",)
    # torch.nn.functional.dropout*, inside a method of an nn.Module subclass
    requires = (("functional",), ("class",), (word("nn"), "Module", "PreTrainedModel"), (MODULE_CLASS,))

    def check(self, ctx):
        for call in _calls_named(ctx, "dropout"):
            qn = ctx.qualname(call) or ""
            if qn not in _FUNCTIONAL_DROPOUT:
                continue
            if len(call.args) >= 3 or keyword(call, "training") is not None or any(isinstance(a, ast.Starred) for a in call.args):
                continue
            if any(kw.arg is None for kw in call.keywords):
                continue
            cls = ctx.enclosing_class(call)
            func = ctx.enclosing_function(call)
            if cls is None or func is None or not is_module_class(ctx, cls):
                continue
            if _guarded_by_training(ctx, call) or grad_off(ctx, call):
                continue  # runs only in training mode, or only in a sampling method that never trains
            yield self.finding(
                ctx,
                call,
                f"`{ctx.segment(call, 80)}` in `{cls.name}.{func.name}` does not pass `training=`; functional dropout defaults"
                " to training=True, so it keeps dropping units after model.eval()",
                next_test="call model.eval() and run the same input twice under torch.no_grad(): the outputs differ",
            )

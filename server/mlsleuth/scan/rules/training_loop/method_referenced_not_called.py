"""The ``method-referenced-not-called`` rule: ``model.eval`` written as a statement, without the call."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.registry import Rule, register_rule

# methods called for their effect on the object (mode, gradients, state): naming one does nothing.
# zero_grad is left to missing-zero-grad, which already reads a bare `opt.zero_grad`.
_EFFECT_METHODS = {
    "train": "the model stays in the mode it was in", "eval": "the model stays in training mode",
    "backward": "no gradient is computed", "step": "nothing is updated",
    "requires_grad_": "the flag is not changed", "zero_": "nothing is zeroed", "detach_": "nothing is detached",
    "reset_parameters": "nothing is re-initialised", "reset": "nothing is reset", "update": "nothing is updated",
    "clear": "nothing is cleared", "set_epoch": "the epoch is not set", "synchronize": "nothing waits",
    "barrier": "no process waits", "empty_cache": "nothing is freed", "flush": "nothing is written",
    "close": "nothing is closed", "save_pretrained": "nothing is saved", "unscale_": "nothing is unscaled",
    "apply_gradients": "nothing is applied", "fuse_model": "nothing is fused",
}


@register_rule
class MethodReferencedNotCalled(Rule):
    """A method such as `model.eval` named without `()`: never called.

    What it finds: an expression statement that is only an attribute naming a method called for its effect
    (`model.eval`, `model.train`, `loss.backward`, `scheduler.step`, `sampler.set_epoch`, `ema.update`,
    `p.requires_grad_`, ...) with no call parentheses.
    Why it matters: Python evaluates the attribute (a bound method) and throws it away. No error, no warning:
    the model is evaluated in training mode (dropout on, batch-norm statistics updated by the evaluation data),
    the gradient is never computed, the schedule never advances. The line reads as if it did its job.
    How to confirm: print `model.training` right after the line: it is still True; or put a print in the method.
    What to do instead: add the parentheses: `model.eval()`, `loss.backward()`, `scheduler.step()`.
    """

    id = "method-referenced-not-called"
    category = "training-loop"
    severity = "error"
    triggers = tuple(_EFFECT_METHODS)

    def check(self, ctx: FileContext):
        if not ctx.imports_any("torch", "lightning", "pytorch_lightning", "transformers", "accelerate"):
            return  # elsewhere `x.step` may be an attribute read on purpose (typing tests, notebooks showing a value)
        for stmt in ctx.nodes_of(ast.Expr):
            value = stmt.value
            if not isinstance(value, ast.Attribute) or value.attr not in _EFFECT_METHODS:
                continue
            owner = ctx.segment(value.value) or "the object"
            yield self.finding(
                ctx, stmt,
                f"`{ctx.segment(value)}` names the method without calling it: {_EFFECT_METHODS[value.attr]} (missing `()` after `{owner}.{value.attr}`)",
                observation=ctx.segment(stmt),
            )

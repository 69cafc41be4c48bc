"""The ``loss-divided-before-deepspeed-backward`` rule: the loss divided by the accumulation steps before `engine.backward`."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis.context import FileContext, constant, dotted, keyword
from mlsleuth.scan.registry import Rule, register_rule

_STEPS_NAME = re.compile(r"accum|grad_acc|acc_steps|(^|[._])gas($|[._])", re.IGNORECASE)


@register_rule
class LossDividedBeforeDeepspeedBackward(Rule):
    """Loss pre-divided before DeepSpeed's engine.backward.

    What it finds: `engine.backward(loss)` on an engine returned by `deepspeed.initialize(...)` (in this file,
    also as `self.` attribute), where `loss` was divided by the accumulation steps first (`loss / accum_steps`,
    `loss /= args.gradient_accumulation_steps`), and the call does not pass `scale_wrt_gas=False`.
    Why it matters: DeepSpeed's `backward` already divides the loss by the configured
    `gradient_accumulation_steps` (its `scale_wrt_gas` default). Dividing by hand as well makes every update
    k times smaller (k the accumulation steps), as if the learning rate were k times lower; the loss falls
    slowly and nothing errors. It is the leftover of porting a hand-written accumulation loop.
    How to confirm: print the value passed to `engine.backward` next to the undivided loss, and
    `engine.gradient_accumulation_steps()`: DeepSpeed divides the passed value once more.
    What to do instead: pass the undivided loss to `engine.backward(loss)` (or keep your division and pass
    `scale_wrt_gas=False`).
    """

    id = "loss-divided-before-deepspeed-backward"
    category = "training-loop"
    severity = "warning"
    triggers = ("deepspeed",)
    requires = (("initialize",), (".backward(",))

    def check(self, ctx: FileContext):
        engines = _engines(ctx)
        if not engines:
            return
        for call in ctx.calls_named("backward"):
            if not isinstance(call.func, ast.Attribute) or dotted(call.func.value) not in engines or not call.args:
                continue
            if constant(keyword(call, "scale_wrt_gas")) is False:
                continue
            divisor = _divisor(ctx, call.args[0])
            if divisor is None:
                continue
            yield self.finding(
                ctx,
                call,
                f"the loss passed to `{dotted(call.func.value)}.backward` was divided by `{ast.unparse(divisor)}`, and"
                " DeepSpeed divides it by gradient_accumulation_steps again: each update is that many times too small",
                observation=ctx.segment(call, 120),
                next_test="print the value passed to backward next to the undivided loss and engine.gradient_accumulation_steps()",
            )


def _engines(ctx: FileContext) -> set[str]:
    """Names bound to the engine ``deepspeed.initialize`` returns (its first element)."""
    out: set[str] = set()
    for assign in ctx.nodes_of(ast.Assign):
        value = assign.value
        if not (isinstance(value, ast.Call) and (ctx.qualname(value) or "") == "deepspeed.initialize"):
            continue
        for target in assign.targets:
            first = target.elts[0] if isinstance(target, (ast.Tuple, ast.List)) and target.elts else target
            name = dotted(first)
            if name:
                out.add(name)
    return out


def _divisor(ctx: FileContext, loss: ast.AST) -> ast.AST | None:
    """The accumulation divisor of ``loss``: in the expression itself, or in the name's bindings since its last plain assignment."""
    exprs = [loss]
    if isinstance(loss, ast.Name):
        scope = ctx.enclosing_function(loss) or ctx.tree
        before = sorted((b for b in ctx.assignments(scope).get(loss.id, []) if b[0] <= loss.lineno), key=lambda b: b[0])
        for line, stmt, value in reversed(before):
            if isinstance(stmt, ast.AugAssign):
                if isinstance(stmt.op, ast.Div) and _STEPS_NAME.search(ast.unparse(stmt.value)):
                    return stmt.value
                continue
            if value is not None:
                exprs.append(value)
            break  # the last plain assignment decides
    for expr in exprs:
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div) and _STEPS_NAME.search(ast.unparse(expr.right)):
            return expr.right
    return None

"""The ``loss-divided-under-accelerate-accumulate`` rule: the loss divided by the accumulation steps before `accelerator.backward`."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis.context import dotted
from mlsleuth.scan.registry import register_rule
from mlsleuth.scan.rules.loop_rule_base import LoopRule

ACCELERATOR = re.compile(r"accelerator|accel\b", re.IGNORECASE)
STEPS_NAME = re.compile(r"accum|grad_acc|acc_steps", re.IGNORECASE)


@register_rule
class LossDividedUnderAccelerateAccumulate(LoopRule):
    """The loss divided by the accumulation steps before `accelerator.backward(loss)`.

    What it finds: inside `with accelerator.accumulate(model):`, `accelerator.backward(loss)` on a loss the loop
    divided by the number of accumulation steps (`loss / accum_steps`, `loss /= cfg.gradient_accumulation_steps`,
    or by the same value the `Accelerator(gradient_accumulation_steps=...)` of the file was built with).
    Why it matters: `accelerator.backward` already divides the loss by `gradient_accumulation_steps`; dividing by
    hand as well makes every update k times smaller than intended (k the accumulation steps), which looks like a
    learning rate k times too small. It is the usual leftover of porting a hand-written accumulation loop to
    accelerate.
    How to confirm: print the value you pass to `accelerator.backward` next to the criterion's output: they
    differ by k, and accelerate divides by k once more.
    What to do instead: pass the undivided loss to `accelerator.backward(loss)`.
    """

    id = "loss-divided-under-accelerate-accumulate"
    category = "training-loop"
    severity = "warning"
    triggers = ("accumulate(",)
    requires = (("backward(",), ("/",))

    def check_loop(self, ctx, trace, loop, events):
        configured = _configured_steps(ctx)
        for back in events:
            if back.kind != "backward" or "accumulate" not in back.contexts or back.loss is None:
                continue
            call = back.node
            if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
                continue
            if not ACCELERATOR.search(dotted(call.func.value) or ""):
                continue
            divisor = _accumulation_divisor(ctx, back.loss, configured, call)
            if divisor is None:
                continue
            yield self.finding(
                ctx,
                back.anchor,
                f"the loss passed to accelerator.backward at {back.where()} was divided by `{ast.unparse(divisor)}`, and "
                "accelerator.backward divides it by gradient_accumulation_steps again: each update is that many times "
                "smaller than intended",
                next_test="Print the criterion's output next to the value passed to accelerator.backward: they differ by the accumulation steps.",
                fix="pass the undivided loss to accelerator.backward(loss); it divides by gradient_accumulation_steps itself",
            )
            return


def _configured_steps(ctx) -> set[str]:
    """The texts given as ``gradient_accumulation_steps=`` to an ``Accelerator(...)`` call of the file."""
    out = set()
    for node in ast.walk(ctx.tree):
        if isinstance(node, ast.Call) and (dotted(node.func) or "").rsplit(".", 1)[-1] == "Accelerator":
            for kw in node.keywords:
                if kw.arg == "gradient_accumulation_steps":
                    out.add(ast.unparse(kw.value))
    return out


def _is_steps(divisor: ast.AST, configured: set[str]) -> bool:
    text = ast.unparse(divisor)
    return bool(STEPS_NAME.search(text)) or text in configured


def _other_branch(ctx, stmt: ast.AST, use: ast.AST) -> bool:
    """``stmt`` and ``use`` sit in the two branches of one ``if`` (`if not do_backward: loss /= k; loss.backward()`
    `else: accelerator.backward(loss)`): the division never reaches that use."""
    use_ancestors = {id(a): a for a in ctx.ancestors(use)}
    child = stmt
    for anc in ctx.ancestors(stmt):
        if isinstance(anc, ast.If) and id(anc) in use_ancestors:
            in_body = any(child is s for s in anc.body)
            use_in_body = any(s is a or s is use for s in anc.body for a in use_ancestors.values())
            return in_body != use_in_body
        child = anc
    return False


def _accumulation_divisor(ctx, loss: ast.AST, configured: set[str], use: ast.AST) -> ast.AST | None:
    """The divisor when ``loss`` (or its binding in the same function) is divided by the accumulation steps."""
    exprs = [loss]
    if isinstance(loss, ast.Name):
        scope = ctx.enclosing_function(loss) or ctx.tree
        for _line, stmt, value in ctx.assignments(scope).get(loss.id, []):
            if _other_branch(ctx, stmt, use):
                continue
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Div) and _is_steps(stmt.value, configured):
                return stmt.value
            if value is not None:
                exprs.append(value)
    for expr in exprs:
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div) and _is_steps(expr.right, configured):
            return expr.right
    return None

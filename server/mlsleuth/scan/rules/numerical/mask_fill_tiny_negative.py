"""The ``mask-fill-tiny-negative`` rule: masked scores filled with a tiny negative number (`-1e-9`) before softmax."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext, call_method, constant
from mlsleuth.scan.registry import Rule, register_rule

_SOFTMAX = {"torch.softmax", "torch.nn.functional.softmax", "torch.special.softmax", "torch.log_softmax", "torch.nn.functional.log_softmax"}


def _tiny_negative(node: ast.AST | None) -> float | None:
    value = constant(node)
    if isinstance(value, float) and -1e-2 < value < 0:
        return value
    return None


def _softmax_of(ctx: FileContext, call: ast.Call) -> ast.AST | None:
    """A softmax call whose input is ``call`` itself or a name bound to it later in the same scope."""
    def is_softmax(node: ast.AST) -> bool:
        return isinstance(node, ast.Call) and (ctx.qualname(node) in _SOFTMAX or call_method(node) in ("softmax", "log_softmax"))

    def input_of(node: ast.Call) -> ast.AST | None:
        if ctx.qualname(node) in _SOFTMAX:
            return node.args[0] if node.args else None
        return node.func.value  # type: ignore[attr-defined]

    for anc in ctx.ancestors(call):
        if is_softmax(anc):
            return anc
        if isinstance(anc, ast.stmt):
            break
    stmt = ctx.parent(call)
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    name = stmt.targets[0].id
    scope = ctx.enclosing_function(call) or ctx.tree
    for node in ctx.walk_scope(scope):
        if is_softmax(node) and node.lineno > stmt.lineno:
            arg = input_of(node)  # type: ignore[arg-type]
            while isinstance(arg, ast.BinOp):  # softmax(scores / t)
                arg = arg.left
            if isinstance(arg, ast.Name) and arg.id == name:
                return node
    return None


@register_rule
class MaskFillTinyNegative(Rule):
    """Masked attention scores filled with a tiny negative number (`-1e-9`) before softmax.

    What it finds: `scores.masked_fill(mask == 0, -1e-9)` (or `masked_fill_`, any negative literal
    between -0.01 and 0) whose result goes into `softmax`/`log_softmax` in the same function.
    Tiny constants used as an epsilon elsewhere (`x / (n + 1e-9)`) and large fills (`-1e9`,
    `torch.finfo(dtype).min`) are not flagged.
    Why it matters: the fill is meant to drive the masked positions' softmax weight to zero, which
    needs a very large negative number; `-1e-9` is practically zero, so padded or future positions
    keep an ordinary weight (about the same as a score of 0) and leak into every output. Nothing
    fails: the model simply trains on padding or peeks ahead.
    How to confirm: print the softmax output for a sequence with padding: the masked columns hold
    clearly non-zero weights.
    What to do instead: fill with `torch.finfo(scores.dtype).min` (or `float("-inf")` when no row is
    fully masked), or `-1e9` in float32.
    """

    id = "mask-fill-tiny-negative"
    category = "numerical"
    severity = "error"
    triggers = ("masked_fill",)
    requires = (("softmax",),)

    def check(self, ctx: FileContext):
        for call in ctx.calls_named("masked_fill", "masked_fill_"):
            fill = call.args[1] if len(call.args) > 1 else next((kw.value for kw in call.keywords if kw.arg == "value"), None)
            value = _tiny_negative(fill)
            if value is None:
                continue
            soft = _softmax_of(ctx, call)
            if soft is None:
                continue
            yield self.finding(
                ctx,
                call,
                f"masked positions are filled with {value!r}, practically zero, before the softmax at line {soft.lineno}: "
                "they keep an ordinary attention weight instead of none",
                observation=f"{ctx.segment(call, 80)} at line {call.lineno}; {ctx.segment(soft, 60)} at line {soft.lineno}",
            )

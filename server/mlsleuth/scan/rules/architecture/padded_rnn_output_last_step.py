"""The ``padded-rnn-output-last-step`` rule: the output of `pad_packed_sequence` read at its last time step."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, keyword
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

_UNPACK = "torch.nn.utils.rnn.pad_packed_sequence"


def _is_minus_one(node: ast.AST) -> bool:
    return isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) and node.operand.value == 1


def _is_full_slice(node: ast.AST) -> bool:
    return isinstance(node, ast.Slice) and node.lower is None and node.upper is None and node.step is None


def _last_step_axis(sub: ast.Subscript) -> int | None:
    """0 for ``out[-1]`` / ``out[-1, :, :]``, 1 for ``out[:, -1]`` / ``out[:, -1, :]``; else None."""
    index = sub.slice
    parts = list(index.elts) if isinstance(index, ast.Tuple) else [index]
    if not parts:
        return None
    if _is_minus_one(parts[0]) and all(_is_full_slice(p) for p in parts[1:]):
        return 0
    if len(parts) >= 2 and _is_full_slice(parts[0]) and _is_minus_one(parts[1]) and all(_is_full_slice(p) for p in parts[2:]):
        return 1
    return None


def _batch_first(call: ast.Call) -> bool | None:
    """``batch_first`` of a ``pad_packed_sequence`` call: a literal, the default False, or None when not literal."""
    flag = call.args[1] if len(call.args) > 1 else keyword(call, "batch_first")
    if flag is None:
        return False if not any(kw.arg is None for kw in call.keywords) else None
    return flag.value if isinstance(flag, ast.Constant) and isinstance(flag.value, bool) else None


def _unpacked_output(ctx: FileContext, name: ast.Name) -> ast.Call | None:
    """The ``pad_packed_sequence(...)`` call whose padded output ``name`` holds at this use, if it does."""
    scope = ctx.enclosing_function(name) or ctx.tree
    last = None
    for line, stmt, bound in value_origins.bindings(ctx, scope).get(name.id, []):
        if line < name.lineno:
            last = (stmt, bound)
    if last is None or not isinstance(last[0], ast.Assign) or len(last[0].targets) != 1:
        return None
    stmt = last[0]
    target, value = stmt.targets[0], stmt.value
    if isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name) and target.elts[0].id == name.id:
        call = value
    elif isinstance(target, ast.Name) and isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) and value.slice.value == 0:
        call = value.value
    else:
        return None
    if isinstance(call, ast.Call) and ctx.qualname(call) == _UNPACK:
        return call
    return None


@register_rule
class PaddedRnnOutputLastStep(Rule):
    """Last step of a `pad_packed_sequence` output is padding.

    What it finds: `out, _ = pad_packed_sequence(packed_out, batch_first=True)` (or
    `pad_packed_sequence(...)[0]`) followed by `out[:, -1]` / `out[:, -1, :]`, or, with the default
    `batch_first=False`, `out[-1]` / `out[-1, :, :]`, used as the summary of each sequence, with
    `out` not reassigned in between. A `batch_first` that is not a literal is left alone, and so is
    a last step gathered per sequence (`out[torch.arange(B), lengths - 1]`).
    Why it matters: `pad_packed_sequence` fills every position after a sequence's length with zeros
    (or `padding_value`). The last time step is a real output only for the longest sequences of the
    batch; every shorter one hands a zero vector to the classifier, so its prediction depends on its
    batch-mates' lengths rather than on its content. The model trains on, with accuracy that drops
    for short inputs and results that change with the batch composition.
    How to confirm: print `out[:, -1].abs().sum(-1)` for a batch with mixed lengths: it is zero for
    every sequence shorter than the longest.
    What to do instead: use the final hidden state the RNN returns for the packed input
    (`_, (h_n, _) = lstm(packed)`, then `h_n[-1]`, or `torch.cat([h_n[-2], h_n[-1]], 1)` when
    bidirectional), or gather each sequence's own last step:
    `out[torch.arange(out.size(0)), lengths - 1]`.
    """

    id = "padded-rnn-output-last-step"
    category = "architecture"
    severity = "error"
    triggers = ("pad_packed_sequence",)
    requires = ((call_to("pad_packed_sequence"),),)

    def check(self, ctx: FileContext):
        for sub in ctx.nodes_of(ast.Subscript):
            if not isinstance(sub.value, ast.Name) or not isinstance(sub.ctx, ast.Load):
                continue
            axis = _last_step_axis(sub)  # type: ignore[arg-type]
            if axis is None:
                continue
            call = _unpacked_output(ctx, sub.value)
            if call is None:
                continue
            batch_first = _batch_first(call)
            if batch_first is None or (axis == 1) != batch_first:
                continue
            yield self.finding(
                ctx,
                sub,
                "the last time step of a padded RNN output is padding (zeros) for every sequence shorter than the "
                "longest in the batch, so this summary ignores their content",
                observation=f"{ctx.segment(sub, 40)} reads the output of {ctx.segment(call, 90)} (line {call.lineno})",
                next_test="Print out[:, -1].abs().sum(-1) for a batch with mixed lengths: it is zero for the shorter sequences.",
                fix="use the RNN's final hidden state h_n for the packed input, or out[torch.arange(B), lengths - 1]",
            )

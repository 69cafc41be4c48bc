"""The ``bidirectional-rnn-last-step`` rule: a bidirectional RNN summarised by its output at the last time step."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, constant, keyword
from mlsleuth.scan.registry import Rule, register_rule

_RNNS = frozenset({"torch.nn.LSTM", "torch.nn.GRU", "torch.nn.RNN"})


def _bidirectional_rnn(ctx: FileContext, built: ast.AST | None) -> tuple[bool, ast.Call] | None:
    """(batch_first, constructor) when ``built`` constructs a bidirectional LSTM/GRU/RNN."""
    if not isinstance(built, ast.Call) or vo.normalize(ctx.qualname(built)) not in _RNNS:
        return None
    bidir = keyword(built, "bidirectional")
    if bidir is None and len(built.args) > 6:
        bidir = built.args[6]
    if constant(bidir) is not True:
        return None
    first = keyword(built, "batch_first")
    if first is None and len(built.args) > 4:
        first = built.args[4]
    batch_first = constant(first) if first is not None else False
    if batch_first not in (True, False):
        return None
    return bool(batch_first), built


def _rnn_outputs(ctx: FileContext, func: ast.AST) -> list[tuple[str, bool, ast.Call]]:
    """(name, batch_first, constructor) for ``out, h = self.rnn(x)`` / ``out = self.rnn(x)[0]`` in ``func``."""
    found = []
    for node in ctx.walk_scope(func):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, value = node.targets[0], node.value
        if isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name) and isinstance(value, ast.Call):
            name, call = target.elts[0].id, value
        elif isinstance(target, ast.Name) and isinstance(value, ast.Subscript) and constant(value.slice) == 0 and isinstance(value.value, ast.Call):
            name, call = target.id, value.value
        else:
            continue
        built = vo.value(ctx, call.func)
        rnn = _bidirectional_rnn(ctx, built)
        if rnn is not None:
            found.append((name, rnn[0], rnn[1]))
    return found


def _last_step_read(sub: ast.Subscript, batch_first: bool) -> bool:
    """``out[:, -1]`` / ``out[:, -1, :]`` (batch first) or ``out[-1]`` / ``out[-1, :, :]`` (sequence first),
    taking every feature: both directions' halves at the last position."""
    index = sub.slice
    parts = list(index.elts) if isinstance(index, ast.Tuple) else [index]
    time_axis = 1 if batch_first else 0
    if len(parts) <= time_axis or constant(parts[time_axis]) != -1:
        return False
    if any(not (isinstance(p, ast.Slice) and p.lower is None and p.upper is None and p.step is None) for i, p in enumerate(parts) if i != time_axis):
        return False  # a feature slice (out[:, -1, :hidden]) takes the forward half only
    return True


@register_rule
class BidirectionalRnnLastStep(Rule):
    """A bidirectional RNN summarised by its output at the last time step.

    What it finds: `out, _ = self.lstm(x)` with `self.lstm` an `nn.LSTM`/`nn.GRU`/`nn.RNN` built with
    `bidirectional=True`, followed by `out[:, -1, :]` (batch first) or `out[-1]` (sequence first) as the
    sequence's summary for a classifier or decoder.
    Why it matters: the output at position -1 concatenates the forward direction's state after the whole
    sequence with the backward direction's state after reading only the last element. Half of the feature
    vector carries almost no information about the sequence, the model learns from the other half, and a
    bidirectional model ends up no better (often worse) than a unidirectional one. Nothing errors.
    How to confirm: compare `out[:, -1, H:]` with the backward half of `h_n` (`h_n[-1]`): they differ;
    `out[:, 0, H:]` equals it.
    What to do instead: use the final states `torch.cat([h_n[-2], h_n[-1]], dim=-1)`, or
    `torch.cat([out[:, -1, :H], out[:, 0, H:]], dim=-1)`, or pool over time (mean/max with a mask).
    """

    id = "bidirectional-rnn-last-step"
    category = "architecture"
    severity = "warning"
    triggers = ("bidirectional",)

    def check(self, ctx: FileContext):
        for func in ctx.functions:
            for name, batch_first, built in _rnn_outputs(ctx, func):
                for node in ctx.walk_scope(func):
                    if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name
                            and isinstance(node.ctx, ast.Load) and _last_step_read(node, batch_first)):
                        yield self.finding(
                            ctx,
                            node,
                            f"`{ctx.segment(node, 40)}` reads a bidirectional {ctx.segment(built.func, 20)}'s output at the last time "
                            "step: its backward half has seen only the last element, so half the summary carries almost nothing",
                            observation=f"bidirectional=True at line {built.lineno}",
                            next_test="Compare out[:, -1, H:] with h_n[-1] (the backward final state): they differ; out[:, 0, H:] matches it.",
                        )
                        break

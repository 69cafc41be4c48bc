"""What reaches a loss function's input: the probability-like values the loss rules look for.

:func:`probability_inputs` follows a loss call's input back to what produced it (through
:mod:`~mlsleuth.scan.analysis.value_origins`), into the call sites of a helper when the input
is one of its parameters; :func:`describe_origin` and :func:`loss_label` word the finding.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext


def loss_label(ctx: FileContext, lc: value_origins.LossCall) -> str:
    return ctx.segment(lc.call.func, 60) + "(...)"


def describe_origin(ctx: FileContext, found: value_origins.Origin) -> str:
    there = found.ctx or ctx
    where = f"line {found.node.lineno}" if there is ctx else f"{there.display_path}, line {found.node.lineno}"  # type: ignore[attr-defined]
    made = f"{found.label or there.segment(found.node, 70)} at {where}"
    if found.via:
        made += " (via " + "; ".join(found.via) + ")"
    return made


def probability_inputs(ctx: FileContext, lc: value_origins.LossCall, kinds: set[str]):
    """(report_node, origin, passed_through) for every probability-like value reaching ``lc.input``.

    The value is followed inside the function; when the input is a parameter
    of a helper, each call site of that helper in the file is checked and
    the finding points at the call site that passes the wrong value.
    """
    found = value_origins.origin(ctx, lc.input)
    if found is not None:
        if found.kind in kinds:
            yield lc.call, found, None
        return
    if isinstance(lc.input, ast.Name) and value_origins.is_parameter(ctx, lc.input):
        func = ctx.enclosing_function(lc.input)
        for sctx, site in value_origins.all_call_sites(ctx, func):
            arg = value_origins.argument_for(site, func, lc.input.id)
            outer = value_origins.origin(sctx, arg) if arg is not None else None
            if outer is not None and outer.kind in kinds:
                if outer.ctx is None:
                    outer.ctx = sctx
                yield (site if sctx is ctx else None), outer, func


def report_site(ctx: FileContext, loss_call: ast.AST, node: ast.AST | None, found: value_origins.Origin) -> tuple[FileContext, ast.AST]:
    """Where a finding about a probability-like loss input belongs: the line the fix changes.

    When the activation is part of a model (its ``forward``, its last layer, the function
    that builds it), removing it there is the fix, so the finding points at it, in
    whichever file it is; otherwise at the call site that passes the value (``node``),
    or the loss call itself.
    """
    there = found.ctx or ctx
    if found.in_model or node is None:
        return there, found.node
    return ctx, node


@dataclass
class WrongInput:
    """A value of the wrong kind reaching a loss: where to report it, what it is, and how it got there."""

    ctx: FileContext  # the file the finding belongs to (the model's file when the activation is the model's)
    node: ast.AST
    origin: value_origins.Origin
    loss: value_origins.LossCall
    flow: str  # "<origin> flows into <loss call> at line N [of file] [inside helper()] [(criterion ...)]"


def wrong_loss_inputs(ctx: FileContext, losses: Iterable[str], kinds: set[str], *, at_producer: bool = True) -> Iterator[WrongInput]:
    """Every value of one of ``kinds`` reaching the input of one of the ``losses`` (by ``LossCall.name``),
    once per reported line. ``at_producer``: report where the fix goes (see :func:`report_site`);
    otherwise at the call that passes the value."""
    wanted = set(losses)
    seen: set[tuple[str, int]] = set()
    for lc in value_origins.loss_calls(ctx):
        if lc.name not in wanted or lc.input is None:
            continue
        for site, found, helper in probability_inputs(ctx, lc, kinds):
            where_ctx, node = report_site(ctx, lc.call, site, found) if at_producer else (ctx, site or lc.call)
            key = (where_ctx.display_path, getattr(node, "lineno", 0))
            if key in seen:
                continue
            seen.add(key)
            where = f"{loss_label(ctx, lc)} at line {lc.call.lineno}"
            if where_ctx is not ctx:
                where += f" of {ctx.display_path}"
            if helper is not None:
                where += f" inside {helper.name}()"
            if lc.via:
                where += f" (criterion {lc.via})"
            yield WrongInput(where_ctx, node, found, lc, f"{describe_origin(ctx, found)} flows into {where}")

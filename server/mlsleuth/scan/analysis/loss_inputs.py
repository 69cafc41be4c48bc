"""What reaches a loss function's input: the probability-like values the loss rules look for.

:func:`probability_inputs` follows a loss call's input back to what produced it (through
:mod:`~mlsleuth.scan.analysis.value_origins`), into the call sites of a helper when the input
is one of its parameters; :func:`describe_origin` and :func:`loss_label` word the finding.
"""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext


def loss_label(ctx: FileContext, lc: value_origins.LossCall) -> str:
    return ctx.segment(lc.call.func, 60) + "(...)"


def describe_origin(ctx: FileContext, found: value_origins.Origin) -> str:
    made = f"{found.label or ctx.segment(found.node, 70)} at line {found.node.lineno}"  # type: ignore[attr-defined]
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
        for site in value_origins.call_sites(ctx, func):
            arg = value_origins.argument_for(site, func, lc.input.id)
            outer = value_origins.origin(ctx, arg) if arg is not None else None
            if outer is not None and outer.kind in kinds:
                yield site, outer, func

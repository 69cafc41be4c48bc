"""The ``wrapped-state-dict-loaded-loosely`` rule: a DDP/DataParallel state dict (keys prefixed ``module.``) is saved, and the project loads checkpoints with ``strict=False``."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, keyword
from mlsleuth.scan.registry import Rule, register_rule

_WRAPPERS = frozenset(
    {"torch.nn.DataParallel", "torch.nn.parallel.DataParallel", "torch.nn.parallel.DistributedDataParallel"}
)
# Code that deals with the prefix: stripping it, or saving the inner module.
_PREFIX_HANDLING = re.compile(r"""["']module\.|removeprefix|consume_prefix_in_state_dict_if_present|\[7:\]""")


@register_rule
class WrappedStateDictLoadedLoosely(Rule):
    """A `module.`-prefixed DDP state dict is saved, and checkpoints are loaded with `strict=False`.

    What it finds: `torch.save(model.state_dict(), ...)` (or a checkpoint dict holding it) where `model` is
    the `DistributedDataParallel`/`DataParallel` wrapper, followed through parameters to what every caller
    passes, in a project that loads state dicts with `load_state_dict(..., strict=False)` and never strips
    the `module.` prefix. Saving `model.module.state_dict()` is not flagged, nor is a project that loads
    strictly or handles the prefix.
    Why it matters: the wrapper's keys all start with `module.`. Loaded into a plain model with
    `strict=False`, not one key matches: the call succeeds, nothing is loaded, and the "restored" model
    evaluates with its random initialisation. The only trace is a missing-keys list nobody reads.
    How to confirm: print `model.load_state_dict(state, strict=False)`: every key is in `missing_keys`,
    and every checkpoint key starts with `module.`.
    What to do instead: save the inner model (`model.module.state_dict()`), or strip the prefix on load
    (`torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(state, "module.")`), and load with
    `strict=True` (or assert that the missing keys are the ones you expect).
    """

    id = "wrapped-state-dict-loaded-loosely"
    category = "distributed"
    severity = "warning"
    reach = "project"
    triggers = ("state_dict",)
    requires = (("save",),)

    def check(self, ctx: FileContext):
        if _PREFIX_HANDLING.search(ctx.source):
            return
        loose = None
        for call in ctx.calls_named("save"):
            if vo.normalize(ctx.qualname(call)) != "torch.save" or not call.args:
                continue
            saved = _state_dict_of(ctx, call.args[0])
            if saved is None or not _is_wrapper(ctx, saved):
                continue
            if loose is None:
                loose = _loose_load(ctx)
                if not loose:
                    return
            where, load = loose
            yield self.finding(
                ctx,
                call,
                f"the state dict of the DDP/DataParallel wrapper `{ctx.segment(saved, 40)}` is saved (every key starts "
                f"with `module.`) and {where} loads checkpoints with strict=False: into a plain model nothing matches and "
                "nothing is loaded",
                observation=f"{ctx.segment(call, 80)} at line {call.lineno}; {ctx.segment(load, 80)}",
                next_test="Print the result of the strict=False load: every parameter is listed in missing_keys.",
            )


def _state_dict_of(ctx: FileContext, expr: ast.AST) -> ast.AST | None:
    """``m`` for ``m.state_dict()``, directly or as a value of a checkpoint dict."""
    bound = vo.value(ctx, expr) if isinstance(expr, ast.Name) else expr
    candidates = bound.values if isinstance(bound, ast.Dict) else [bound]
    for value in candidates:
        if isinstance(value, ast.Call) and call_method(value) == "state_dict" and isinstance(value.func, ast.Attribute):
            return value.func.value
    return None


def _is_wrapper(ctx: FileContext, model: ast.AST, depth: int = 0) -> bool:
    bound = vo.value(ctx, model) if isinstance(model, (ast.Name, ast.Attribute)) else model
    if isinstance(bound, ast.Call):
        return vo.normalize(ctx.qualname(bound)) in _WRAPPERS
    if isinstance(bound, ast.Name) and depth < 2 and vo.is_parameter(ctx, bound):
        func = ctx.enclosing_function(bound)
        sites = vo.all_call_sites(ctx, func) if func is not None else []
        args = [(sctx, vo.argument_for(site, func, bound.id)) for sctx, site in sites]
        return bool(args) and all(arg is not None and _is_wrapper(sctx, arg, depth + 1) for sctx, arg in args)
    return False


def _loose_load(ctx: FileContext) -> tuple[str, ast.Call] | None:
    """(where, call) of a ``load_state_dict(..., strict=False)`` in this file or another module."""
    files = [ctx]
    if ctx.project is not None:
        files += ctx.project.files_mentioning(ctx, "load_state_dict")
    for fctx in files:
        if fctx is not ctx and _PREFIX_HANDLING.search(fctx.source):
            return None
        for call in fctx.calls_named("load_state_dict"):
            if constant(keyword(call, "strict")) is False:
                return ("this file" if fctx is ctx else fctx.display_path), call
    return None

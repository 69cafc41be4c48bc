"""The ``ddp-forward-bypasses-wrapper`` rule: the training forward runs on `ddp_model.module`, so DDP never averages the gradients."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted
from mlsleuth.scan.analysis.torch_idioms import grad_off
from mlsleuth.scan.registry import Rule, register_rule

_DDP = frozenset({"torch.nn.parallel.DistributedDataParallel", "torch.nn.parallel.distributed.DistributedDataParallel"})
# Methods of the unwrapped module that compute nothing a gradient flows through.
_NOT_A_FORWARD = frozenset({
    "state_dict", "load_state_dict", "parameters", "named_parameters", "buffers", "named_buffers", "modules",
    "named_modules", "children", "named_children", "to", "cpu", "cuda", "eval", "train", "half", "float", "zero_grad",
    "save_pretrained", "generate", "register_buffer", "apply", "requires_grad_", "get_submodule",
})
# Hand-written gradient averaging: then the unwrapped forward is synchronised by hand.
_MANUAL_SYNC = re.compile(r"all_reduce\([^)\n]*\.grad\b")


def _wrapped_names(ctx: FileContext) -> set[str]:
    """Dotted names bound to a DistributedDataParallel wrapper (``model``, ``self.model``)."""
    names = set()
    for call in ctx.calls_named("DistributedDataParallel", "DDP"):
        if vo.normalize(ctx.qualname(call)) not in _DDP:
            continue
        node: ast.AST | None = ctx.parent(call)
        while node is not None and not isinstance(node, ast.stmt):
            node = ctx.parent(node)  # `self.model = DDP(m) if distributed else m` too
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            name = dotted(node.targets[0])
            if name:
                names.add(name)
                names |= _bound_from_builder(ctx, node, name)
    for test in ctx.nodes_of(ast.IfExp):
        # `self.model.module if isinstance(self.model, DDP) else self.model`: the code says it may be wrapped
        cond = test.test
        if (isinstance(cond, ast.Call) and isinstance(cond.func, ast.Name) and cond.func.id == "isinstance" and len(cond.args) == 2
                and vo.normalize(ctx.qualname(cond.args[1])) in _DDP and dotted(cond.args[0])):
            names.add(dotted(cond.args[0]))  # type: ignore[arg-type]
    return names


def _bound_from_builder(ctx: FileContext, assign: ast.Assign, name: str) -> set[str]:
    """``model = DDP(model); return model`` inside a builder: the names the builder's callers bind its result to."""
    func = ctx.enclosing_function(assign)
    if func is None or "." in name or not any(isinstance(r, ast.Name) and r.id == name for r in vo.returns(func)):
        return set()
    found = set()
    for _sctx, site in vo.all_call_sites(ctx, func):
        holder = ctx.parent(site)
        if isinstance(holder, ast.Assign) and len(holder.targets) == 1 and dotted(holder.targets[0]):
            found.add(dotted(holder.targets[0]))  # type: ignore[arg-type]
    return found


def _unwrapped(ctx: FileContext, expr: ast.AST, wrapped: set[str], depth: int = 0) -> bool:
    """``model.module`` of a wrapped name, or a call to a helper that returns it."""
    if depth > 2:
        return False
    if isinstance(expr, ast.Attribute) and expr.attr == "module" and dotted(expr.value) in wrapped:
        return True
    if isinstance(expr, ast.Call) and not expr.args:
        helper = vo.callee(ctx, expr)
        if helper is not None:
            return any(_unwrapped(ctx, r, wrapped, depth + 1) or isinstance(r, ast.IfExp) and _unwrapped(ctx, r.body, wrapped, depth + 1)
                       for r in vo.returns(helper))
    return False


def _trains_here(ctx: FileContext, call: ast.Call) -> bool:
    func = ctx.enclosing_function(call)
    scope = func if func is not None else ctx.tree
    return any(call_method(c) == "backward" for c in ctx.calls(scope))


@register_rule
class DdpForwardBypassesWrapper(Rule):
    """The training forward runs on `model.module`: DDP never averages the gradients.

    What it finds: a model wrapped in `DistributedDataParallel`, and a training step (one that calls
    `backward()`) that computes its loss through the unwrapped module: `model.module(x)`,
    `model.module.compute_loss(batch)`, or `self.unwrap().training_step(...)` where the helper returns
    `self.model.module`. Evaluation under `no_grad`, `generate()` and state-dict calls are not reported,
    nor code that all-reduces the gradients by hand.
    Why it matters: DDP synchronises gradients through hooks it installs when its own `forward` runs.
    A forward through `.module` skips them, so each rank steps with its own shard's gradient: the replicas
    drift apart, the model saved from rank 0 has seen only its shard, and the run is not the
    data-parallel training it looks like. Nothing errors.
    How to confirm: after a few steps compare a parameter's checksum across ranks
    (`dist.all_gather` of `p.sum()`): the values differ.
    What to do instead: call the wrapper (`model(batch)`); to reach a custom method, route it through
    `forward` (e.g. `forward(self, batch, mode="loss")`), or average the gradients yourself after backward.
    """

    id = "ddp-forward-bypasses-wrapper"
    category = "distributed"
    severity = "error"
    triggers = ("DistributedDataParallel", "DDP")

    def check(self, ctx: FileContext):
        if ".module" not in ctx.source or _MANUAL_SYNC.search(ctx.source):
            return
        wrapped = _wrapped_names(ctx)
        if not wrapped:
            return
        for call in ctx.calls():
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr in _NOT_A_FORWARD:
                continue
            target = func.value if isinstance(func, ast.Attribute) and not _unwrapped(ctx, func, wrapped) else func
            if not _unwrapped(ctx, target, wrapped) or grad_off(ctx, call) or not _trains_here(ctx, call):
                continue
            yield self.finding(
                ctx,
                call,
                f"`{ctx.segment(call, 60)}` runs the training forward on the module inside DistributedDataParallel: "
                "DDP's gradient hooks never fire, so each rank steps with its own shard's gradients and the replicas drift apart",
                next_test="After a few steps, all_gather a parameter's sum across ranks: different values confirm it.",
            )

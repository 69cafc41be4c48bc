"""The ``direct-forward-call`` rule: a model's `.forward()` is called directly instead of calling the model."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis.context import FileContext, dotted
from mlsleuth.scan.analysis.torch_idioms import grad_off, is_module_class, model_names
from mlsleuth.scan.analysis.training_step_model import loop_model
from mlsleuth.scan.registry import Rule, register_rule


# What runs in ``Module.__call__`` around ``forward``: wrappers and reparametrisations that a direct
# ``.forward()`` call skips. Without any of them in the project, skipping ``__call__`` changes nothing yet.
_HOOK_USERS = re.compile(
    r"DistributedDataParallel|\bDDP\b|FullyShardedDataParallel|\bFSDP\b|fully_shard|DataParallel|"
    r"register_forward_(?:pre_)?hook|register_full_backward_(?:pre_)?hook|register_module_forward|"
    r"weight_norm|spectral_norm|parametriz|\bprune\.|checkpoint_wrapper|accelerator\.prepare|Fabric|deepspeed"
)


@register_rule
class DirectForwardCall(Rule):
    """A model's `.forward()` is called directly instead of calling the model.

    What it finds: `model.forward(x)` in training or evaluation code, where `model` is an object the
    file treats as a model (it calls `.parameters()`, `.eval()`, ... on it). Calls inside a module's
    own methods (`super().forward(x)`, `self.inner.forward(x)` in a wrapper's `forward`) are left
    alone: wrappers do this on purpose and the outer call already ran the hooks.
    Why it matters: `model(x)` runs `__call__`, which runs forward pre-hooks and hooks, and the hooks
    that wrappers and tools rely on: `DistributedDataParallel` gradient synchronisation, FSDP
    parameter gathering, pruning and weight-norm reparametrisations, activation checkpointing,
    profilers. Calling `.forward` skips them all, so multi-GPU training silently stops syncing
    gradients or a reparametrised weight is stale.
    How to confirm: register a forward hook that prints (`model.register_forward_hook(lambda *a:
    print('hook'))`) and run the line: nothing is printed.
    What to do instead: call the module itself: `model(x)`.
    Reported as a warning when the project uses something that lives in those hooks (a DDP/FSDP/
    DataParallel wrapper, accelerate/Fabric/DeepSpeed, registered hooks, weight or spectral norm,
    parametrizations, pruning); otherwise as info, since nothing is skipped yet.
    """

    id = "direct-forward-call"
    category = "architecture"
    severity = "warning"
    triggers = (".forward(",)

    def check(self, ctx):
        if not ctx.imports_any("torch"):
            return
        models = model_names(ctx)
        for call in ctx.calls():
            if not isinstance(call.func, ast.Attribute) or call.func.attr != "forward":
                continue
            receiver = call.func.value
            name = dotted(receiver)
            if name is None or name in {"self", "cls"} or name.split(".")[0] in ctx.imports:
                continue
            cls = ctx.enclosing_class(call)
            if cls is not None and is_module_class(ctx, cls):
                continue
            func = ctx.enclosing_function(call)
            if func is not None and func.name == "forward":
                continue
            if name.startswith("self.") and cls is not None:
                continue
            if name not in models or self._is_parallel_wrapper(ctx, receiver):
                continue
            if not self._in_training_or_eval_loop(ctx, call):
                continue
            yield self.finding(
                ctx,
                call,
                severity=None if self._hooks_in_use(ctx) else "info",
                message=f"`{ctx.segment(call, 80)}` calls forward directly: the module's hooks (DDP gradient sync, FSDP, pruning,"
                f" profilers) do not run; call `{name}(...)` instead",
                next_test=f"register `{name}.register_forward_hook(lambda *a: print('hook'))` and run this line: nothing prints",
            )

    @staticmethod
    def _hooks_in_use(ctx: FileContext) -> bool:
        if _HOOK_USERS.search(ctx.source):
            return True
        project = ctx.project
        return project is not None and project.package_matches(ctx, _HOOK_USERS)

    @staticmethod
    def _is_parallel_wrapper(ctx: FileContext, receiver: ast.AST) -> bool:
        """DDP/FSDP/DataParallel objects do their work in their own forward: calling it is fine."""
        value = ctx.resolve(receiver)
        if isinstance(value, ast.Call):
            last = (ctx.qualname(value) or "").rsplit(".", 1)[-1]
            return last in {"DistributedDataParallel", "DataParallel", "FullyShardedDataParallel", "DDP", "FSDP"}
        return False

    @staticmethod
    def _in_training_or_eval_loop(ctx: FileContext, call: ast.Call) -> bool:
        """The call runs in a loop that trains (backward/step) or evaluates (eval mode, no_grad)."""
        loops = ctx.enclosing_loops(call)
        if not loops:
            return False
        if grad_off(ctx, call):
            return True
        model = loop_model(ctx)
        for trace in model.traces:
            for loop in loops:
                if loop in trace.loop_parent and {"backward", "step", "eval"} & trace.kinds(loop):
                    return True
        return False

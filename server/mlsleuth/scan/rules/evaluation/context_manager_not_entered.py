"""The ``context-manager-not-entered`` rule: ``torch.no_grad()`` called as a statement, never entered."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.registry import Rule, register_rule

_CONTEXT_FACTORIES = {
    "torch.no_grad": "gradients are still tracked", "torch.inference_mode": "gradients are still tracked",
    "torch.enable_grad": "nothing is enabled", "torch.set_grad_enabled": None,  # set_grad_enabled(False) works as a call
    "torch.autocast": "nothing runs in mixed precision", "torch.amp.autocast": "nothing runs in mixed precision",
    "torch.cuda.amp.autocast": "nothing runs in mixed precision", "torch.cpu.amp.autocast": "nothing runs in mixed precision",
    "torch.autograd.detect_anomaly": "anomaly detection stays off", "torch.random.fork_rng": "the RNG state is not forked",
}


@register_rule
class ContextManagerNotEntered(Rule):
    """`torch.no_grad()` called as a statement, never entered with `with`.

    What it finds: an expression statement that only calls a context-manager factory: `torch.no_grad()`,
    `torch.inference_mode()`, `torch.enable_grad()`, `torch.autocast(...)` and the `torch.cuda.amp` /
    `torch.amp` forms, `torch.autograd.detect_anomaly()`.
    Why it matters: calling the factory builds the context manager and discards it; nothing is switched. The
    evaluation that looks gradient-free still records the autograd graph (memory, time, and any in-place check),
    the loop that looks mixed-precision runs in float32, anomaly detection stays off. The line reads as if it
    worked.
    How to confirm: print `torch.is_grad_enabled()` (or the dtype of an activation) on the next line.
    What to do instead: `with torch.no_grad():` around the block, decorate the function with
    `@torch.no_grad()`, or use `torch.set_grad_enabled(False)`, which does act as a plain call.
    """

    id = "context-manager-not-entered"
    category = "evaluation"
    severity = "warning"
    triggers = ("no_grad", "inference_mode", "enable_grad", "autocast", "detect_anomaly", "fork_rng")

    def check(self, ctx: FileContext):
        for stmt in ctx.nodes_of(ast.Expr):
            if not isinstance(stmt.value, ast.Call):
                continue
            effect = _CONTEXT_FACTORIES.get(ctx.qualname(stmt.value) or "")
            if effect:
                yield self.finding(
                    ctx, stmt,
                    f"`{ctx.segment(stmt.value)[:60]}` builds a context manager and discards it: {effect} (use `with`)",
                    observation=ctx.segment(stmt)[:160],
                )

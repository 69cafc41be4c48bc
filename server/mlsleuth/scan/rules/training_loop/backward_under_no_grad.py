"""The ``backward-under-no-grad`` rule: the loss is computed and backpropagated with gradients disabled."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.training_step_model import (
    Event,
    dedupe,
    loop_model,
    step_loops,
)
from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import Rule, register_rule


@register_rule
class BackwardUnderNoGrad(Rule):
    """The loss is computed and backpropagated with gradients disabled.

    What it finds: a function decorated with `@torch.no_grad()` / `@torch.inference_mode()`, or a
    `with torch.no_grad():` block, that computes a loss and calls `backward()` on it in a training
    loop.
    Why it matters: under `no_grad` no graph is recorded, so `backward()` fails with "element 0 of
    tensors does not require grad and does not have a grad_fn", and the usual reaction (setting
    `requires_grad=True` on the loss) makes the run silently train nothing. Decorators are easy to
    miss when the function is copied from an evaluation routine.
    How to confirm: print `loss.requires_grad` and `loss.grad_fn` just before `backward()`: False and
    None.
    What to do instead: remove the decorator or the `with` block from the training code; keep
    `no_grad` for evaluation and for frozen targets only.
    """

    id = "backward-under-no-grad"
    category = "training-loop"
    severity = "error"
    triggers = ("backward",)
    requires = (("no_grad", "inference_mode", "set_grad_enabled"), (STEP_CALL,))

    def check(self, ctx):
        model = loop_model(ctx)
        found = []
        for trace in model.traces:
            for loop in step_loops(trace):
                for event in trace.in_loop(loop):
                    if event.kind != "backward" or "no_grad" not in event.contexts or "enable_grad" in event.contexts:
                        continue
                    if not self._loss_made_under_no_grad(ctx, event):
                        continue
                    found.append(
                        self.finding(
                            ctx,
                            event.node,
                            f"backward at {event.where()} runs on a loss computed with gradients disabled (torch.no_grad /"
                            " inference_mode around it): there is no graph to backpropagate through",
                            next_test="print `loss.requires_grad, loss.grad_fn` just before backward(): False, None",
                        )
                    )
        yield from dedupe(iter(found))

    @staticmethod
    def _loss_made_under_no_grad(ctx: FileContext, event: Event) -> bool:
        loss = event.loss
        if loss is None:
            return False
        if isinstance(loss, ast.Call):
            return True  # model(x).sum().backward() inside the no_grad region
        if not isinstance(loss, ast.Name):
            return False
        scope = ctx.enclosing_function(loss) or ctx.tree
        entries = [e for e in ctx.assignments(scope).get(loss.id, []) if e[0] <= loss.lineno]
        if not entries:
            return False
        stmt = entries[-1][1]
        backward_withs = {id(w) for w in ctx.enclosing_withs(event.node)}
        stmt_withs = {id(w) for w in ctx.enclosing_withs(stmt)}
        func = ctx.enclosing_function(event.node)
        decorated = func is not None and any(
            (ctx.qualname(d) or "") in {"torch.no_grad", "torch.inference_mode"} for d in func.decorator_list
        )
        return decorated or bool(backward_withs & stmt_withs)

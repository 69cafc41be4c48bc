"""The ``lightning-training-step-returns-nothing`` rule: a Lightning `training_step` under automatic optimization never returns the loss."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.lightning import is_stub, training_steps
from mlsleuth.scan.registry import Rule, register_rule


@register_rule
class LightningTrainingStepReturnsNothing(Rule):
    """A Lightning `training_step` under automatic optimization never returns the loss.

    What it finds: a `LightningModule` (directly or through its base classes, in this file or the
    project) that keeps Lightning's default automatic optimization and whose `training_step` has no
    `return` of a value: it computes and perhaps logs a loss, then falls off the end.
    Why it matters: under automatic optimization Lightning calls `backward()` on what `training_step`
    returns and skips the optimizer step for any batch where that is `None` (the documented way to
    skip a batch). A step that never returns skips every batch: the weights never change, while the
    logged training loss looks like a normal, noisy curve and the run finishes without an error.
    How to confirm: compare a parameter before and after one epoch (`p.clone()` then
    `torch.equal`): it is unchanged; or check `trainer.global_step`, which stays at 0.
    What to do instead: end `training_step` with `return loss` (or a dict with a `"loss"` key). To skip
    a bad batch on purpose, return `None` on that path only.
    """

    id = "lightning-training-step-returns-nothing"
    category = "training-loop"
    severity = "error"
    reach = "project"
    triggers = ("training_step",)
    # no "LightningModule" requirement: the base class may be in another module of the project

    def check(self, ctx: FileContext):
        for cls, step in training_steps(ctx):
            if is_stub(step) or any(_returns_a_value(r) for r in _return_statements(step)):
                continue
            if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(step)):
                continue
            last = step.body[-1]
            yield self.finding(
                ctx,
                last,
                f"{cls.name}.training_step (line {step.lineno}) never returns the loss: under automatic optimization"
                " Lightning skips backward and the optimizer step for every batch whose training_step returns None,"
                " so the model never trains while the logged loss looks normal",
                next_test="check trainer.global_step after a short fit (it stays 0), or compare a parameter before and after one epoch",
            )


def _return_statements(func: ast.AST) -> list[ast.Return]:
    found = []
    stack = list(ast.iter_child_nodes(func))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Return):
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _returns_a_value(ret: ast.Return) -> bool:
    return ret.value is not None and not (isinstance(ret.value, ast.Constant) and ret.value.value is None)



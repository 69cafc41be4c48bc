"""The ``train-mode-never-set`` rule: a model loaded with `from_pretrained` is trained without ever calling `model.train()`."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.torch_idioms import trained_models
from mlsleuth.scan.analysis.training_step_model import loop_model, step_loops
from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import Rule, register_rule

_LOADS_IN_EVAL_MODE = ("from_pretrained",)


@register_rule
class TrainModeNeverSet(Rule):
    """A model loaded with `from_pretrained` is trained without ever calling `model.train()`.

    What it finds: a custom training loop (backward and optimizer step) over a model created with
    `from_pretrained(...)` (Hugging Face transformers and similar libraries), in a file that never
    calls `.train()` on anything.
    Why it matters: `from_pretrained` returns the model in evaluation mode. A hand-written loop that
    never switches it back fine-tunes with dropout disabled (and, for models with batch norm, with
    frozen running statistics): the run overfits sooner and does not match the reference numbers,
    with nothing in the logs to say why. The library's `Trainer` calls `model.train()` for you, so
    loops copied from it lose the call.
    How to confirm: print `model.training` at the first step of the loop: it is False.
    What to do instead: call `model.train()` before the training loop (and again after every
    evaluation inside it).
    """

    id = "train-mode-never-set"
    category = "evaluation"
    severity = "warning"
    triggers = ("from_pretrained",)
    requires = (("backward",), (STEP_CALL,))

    def check(self, ctx):
        model = loop_model(ctx)
        if any(e.kind == "train" for t in model.traces for e in t.events):
            return
        if any(isinstance(c.func, ast.Attribute) and c.func.attr == "train" for c in ctx.calls()):
            return
        trained = trained_models(ctx, model)
        reported = set()
        for trace in model.traces:
            for loop in step_loops(trace):
                events = trace.in_loop(loop)
                if not {"backward", "step"} <= {e.kind for e in events} or isinstance(loop, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                for name in sorted(trained):
                    site = self._pretrained_site(ctx, model, name, loop)
                    if site is None or (site.lineno, name) in reported:
                        continue
                    reported.add((site.lineno, name))
                    step = next(e for e in events if e.kind == "step")
                    yield self.finding(
                        ctx,
                        loop,
                        f"`{name}` comes from from_pretrained (line {site.lineno}), which returns it in eval mode, and is trained"
                        f" by the loop at line {loop.lineno} (step at {step.where()}) without any `{name}.train()`: dropout"
                        " stays off during fine-tuning",
                        observation=ctx.line_text(loop.lineno),
                        next_test=f"print `{name}.training` at the first step of the loop at line {loop.lineno}: it is False",
                    )

    @staticmethod
    def _pretrained_site(ctx: FileContext, model, name: str, loop: ast.AST) -> ast.Call | None:
        if "." in name:
            return None
        scope = ctx.enclosing_function(loop) or ctx.tree
        entries = ctx.assignments(scope).get(name, [])
        value = entries[-1][2] if entries else model.module_value(name)
        while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in {"to", "cuda"}:
            value = value.func.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _LOADS_IN_EVAL_MODE:
            return value
        return None

"""The ``train-mode-not-restored`` rule: training continues in eval mode after an evaluation inside the epoch loop."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from mlsleuth.scan.analysis.torch_idioms import NOT_TRAINED, trained_models
from mlsleuth.scan.analysis.training_step_model import (
    Trace,
    dedupe,
    loop_model,
    mentions_training_events,
)
from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import Rule, register_rule

_OWN_EVIDENCE = (".eval(", "backward", "train(False", "train(mode=False")


@register_rule
class TrainModeNotRestored(Rule):
    """Training continues in eval mode after an evaluation inside the epoch loop.

    What it finds: an epoch loop that trains (runs `backward()` / `optimizer.step()`) and also calls
    `model.eval()` (directly or in a helper such as `evaluate(model, ...)`), but never calls
    `model.train()` inside the loop, so from the second epoch on the model trains in eval mode.
    Why it matters: in eval mode dropout is off and BatchNorm uses (and stops updating) its running
    statistics. Training still "works", which hides the bug: the model regularises less, BatchNorm
    statistics freeze at their epoch-one values, and the curves change shape after the first
    evaluation.
    How to confirm: print `model.training` at the first batch of the second epoch: it is False.
    What to do instead: call `model.train()` at the start of every epoch (or of the training
    function), not once before the loop.
    """

    id = "train-mode-not-restored"
    category = "evaluation"
    severity = "warning"
    # The switch to eval mode or the training step may sit in a helper of another module
    # (`model.val_start()`), which the loop model follows; one of them must show in this file.
    # A loop whose steps and evaluation all happen in helpers shows neither here: `validate(...)` /
    # `model.train_emb(...)` still spell "val"/"eval" and "train".
    triggers = (".eval(", ".train(False", "train(mode=False", "backward", "train")
    requires = (("backward", "eval", "train(False", "train(mode=False", "val"), (STEP_CALL, "eval", "val"))
    reach = "project"

    def check(self, ctx):
        src = ctx.source
        own = any(w in src for w in _OWN_EVIDENCE) and (".eval(" in src or STEP_CALL.search(src) is not None)
        if not own and mentions_training_events(src):
            # the wide gate is for files that train only through helpers; one that steps or switches
            # modes itself without any switch to eval here has nothing for this rule
            return
        model = loop_model(ctx)
        yield from dedupe(f for trace in model.traces for f in self._trace(ctx, model, trace))

    def _trace(self, ctx, model, trace: Trace) -> Iterator:
        trained = trained_models(ctx, model)
        for loop in trace.loops():
            if isinstance(loop, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            events = trace.in_loop(loop)
            kinds = {e.kind for e in events}
            if "eval" not in kinds or not ({"backward", "step"} <= kinds) or "opaque" in kinds:
                continue
            if any(e.kind == "train" for e in events):
                continue
            # `model.train()` once per epoch does not restore a batch loop that evaluates mid-epoch: the
            # rest of that epoch trains in eval mode. Only a train() after the inner loop's evaluation counts.
            evals = [e for e in events if e.kind == "eval" and self._is_trained_model(e.target, trained)]
            if not evals:
                continue
            ev = evals[0]
            training = next(e for e in events if e.kind in {"backward", "step"})
            if self._trains_in_eval_mode_by_design(evals, training):
                continue
            # point at the call inside the loop (`validate(...)`), not at the root-most call that leads there
            inside = [n for n in (*ev.via, ev.anchor) if loop.lineno <= getattr(n, "lineno", 0) <= (loop.end_lineno or loop.lineno)]
            yield self.finding(
                ctx,
                inside[0] if inside else ev.anchor,
                f"{ev.target}.eval() at {ev.where()} runs inside the loop at line {loop.lineno}, which also trains ({training.kind} at "
                f"{training.where()}), and {ev.target}.train() is never called in that loop: after the first pass the model"
                " trains in eval mode (dropout off, batch-norm statistics frozen)",
                next_test=f"print `{ev.target}.training` at the first batch of the second iteration of the loop at line {loop.lineno}: it is False",
            )

    @staticmethod
    def _trains_in_eval_mode_by_design(evals: list, training) -> bool:
        """The training helper itself switches to eval mode before its batch loop (a linear probe on frozen
        features, frozen batch-norm fine-tuning): every call sets the mode it means to train in, so an
        evaluation elsewhere in the loop leaves nothing behind."""
        return any(
            ev.via and ev.via == training.via and ev.order < training.order and len(training.loops) > len(ev.loops)
            for ev in evals
        )

    @staticmethod
    def _is_trained_model(target: str | None, trained: set[str]) -> bool:
        if not target or target == "self":
            return target == "self"
        if trained:
            return target in trained or any(t.startswith(target + ".") for t in trained)
        return not NOT_TRAINED.search(target)

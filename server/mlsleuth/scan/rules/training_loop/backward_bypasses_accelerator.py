"""The ``backward-bypasses-accelerator`` rule: `loss.backward()` inside `with accelerator.accumulate(model):`."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis.context import dotted
from mlsleuth.scan.registry import register_rule
from mlsleuth.scan.rules.loop_rule_base import LoopRule

ACCELERATOR = re.compile(r"accelerator|accel\b", re.IGNORECASE)


@register_rule
class BackwardBypassesAccelerator(LoopRule):
    """`loss.backward()` inside `with accelerator.accumulate(model):` instead of `accelerator.backward(loss)`.

    What it finds: in a batch loop, a plain `<loss>.backward()` (or `scaler.scale(loss).backward()`) that runs
    inside an `accelerator.accumulate(...)` block. Helpers called from the loop are followed.
    Why it matters: `accelerator.accumulate` skips the optimizer step and `zero_grad` between gradient syncs,
    expecting `accelerator.backward(loss)` to divide each micro-batch loss by `gradient_accumulation_steps` (and
    to apply accelerate's own loss scale under fp16). A plain backward skips both: the micro-batch gradients are
    summed, so each update is `gradient_accumulation_steps` times larger than intended, and with fp16 mixed
    precision the gradients are not scaled at all.
    How to confirm: print the gradient norm before `optimizer.step()` with `gradient_accumulation_steps=1` and
    with 4 on the same data: it grows about 4 times.
    What to do instead: call `accelerator.backward(loss)`.
    """

    id = "backward-bypasses-accelerator"
    category = "training-loop"
    severity = "error"
    triggers = ("accumulate(",)
    requires = ((".backward(",),)

    def check_loop(self, ctx, trace, loop, events):
        for back in events:
            if back.kind != "backward" or "accumulate" not in back.contexts or back.closure:
                continue
            call = back.node
            if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute) or call.func.attr != "backward":
                continue
            if ACCELERATOR.search(dotted(call.func.value) or ""):
                continue  # accelerator.backward(loss)
            yield self.finding(
                ctx,
                back.anchor,
                f"`{ast.unparse(call)}` at {back.where()} runs inside accelerator.accumulate(): it bypasses "
                "accelerator.backward, so the micro-batch loss is not divided by gradient_accumulation_steps and "
                "the accumulated gradients are a sum",
                next_test=(
                    "Print the gradient norm before optimizer.step() with gradient_accumulation_steps=1 and with 4 on "
                    "the same batches: it grows about 4 times."
                ),
                fix="replace it by accelerator.backward(loss)",
            )
            return

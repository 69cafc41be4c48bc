"""The ``retain-graph-in-loop`` rule: `backward(retain_graph=True)` on every step when nothing backpropagates through that graph again."""

from __future__ import annotations

import ast

from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import register_rule
from mlsleuth.scan.rules.loop_rule_base import (
    LoopRule,
    compatible,
    fresh_optimizer_each_iteration,
    loop_line,
)


@register_rule
class RetainGraphInLoop(LoopRule):
    """`backward(retain_graph=True)` on every step when nothing backpropagates through that graph again.

    What it finds: `loss.backward(retain_graph=True)` as the only `backward()` of each iteration of a
    training loop.
    Why it matters: `retain_graph=True` keeps every saved activation of the graph alive after backward.
    It is needed only when the same graph is backpropagated twice. Added to silence "Trying to
    backward through the graph a second time", it usually hides a hidden state (RNN, running
    statistic) carried across batches without `.detach()`: each step's graph then links to all the
    previous ones, memory and step time grow every iteration, and gradients flow into old batches.
    How to confirm: log `torch.cuda.memory_allocated()` and the step time every 100 steps: both keep
    growing. Remove `retain_graph=True`: the error that returns names the tensor carried over.
    What to do instead: drop `retain_graph=True` and detach state carried across steps
    (`hidden = hidden.detach()` at the start of each batch, truncated backpropagation through time).
    """

    id = "retain-graph-in-loop"
    category = "training-loop"
    severity = "info"
    triggers = ("retain_graph",)
    requires = (("backward",), (STEP_CALL,))

    def check_loop(self, ctx, trace, loop, events):
        for event in events:
            if event.kind != "backward" or not isinstance(event.node, ast.Call) or event.closure:
                continue
            flag = next((kw.value for kw in event.node.keywords if kw.arg == "retain_graph"), None)
            if not (isinstance(flag, ast.Constant) and flag.value is True):
                continue
            others = [e for e in events if e.kind == "backward" and e is not event and compatible(e, event)]
            if others or event.loops[-1] is not loop or fresh_optimizer_each_iteration(loop, events):
                continue
            yield self.finding(
                ctx,
                event.node,
                f"backward at {event.where()} keeps the graph (retain_graph=True) but no other backward uses it in this"
                f" iteration of the loop at line {loop_line(loop)}: saved activations pile up; if it was added to silence"
                " 'backward through the graph a second time', a tensor carried across steps needs .detach()",
                next_test="log torch.cuda.memory_allocated() every 100 steps, then remove retain_graph=True and read the error",
            )

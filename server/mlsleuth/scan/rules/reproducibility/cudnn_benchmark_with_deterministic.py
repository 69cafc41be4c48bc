"""The ``cudnn-benchmark-with-deterministic`` rule: cuDNN autotuning switched on in code that asks for deterministic results."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext, constant
from mlsleuth.scan.registry import Rule, register_rule

_BENCHMARK = "torch.backends.cudnn.benchmark"
_DETERMINISTIC = "torch.backends.cudnn.deterministic"
_USE_DETERMINISTIC = {"torch.use_deterministic_algorithms"}


def _flag_sets(ctx: FileContext, scope: ast.AST, name: str) -> list[ast.Assign]:
    """``<name> = True`` assignments directly in ``scope`` (not in nested functions)."""
    found = []
    for node in ctx.walk_scope(scope):
        if isinstance(node, ast.Assign) and constant(node.value) is True:
            if any(ctx.qualname(t) == name for t in node.targets if isinstance(t, ast.Attribute)):
                found.append(node)
    return found


def _asks_determinism(ctx: FileContext, scope: ast.AST) -> ast.AST | None:
    found = _flag_sets(ctx, scope, _DETERMINISTIC)
    if found:
        return found[0]
    for node in ctx.walk_scope(scope):
        if isinstance(node, ast.Call) and ctx.qualname(node) in _USE_DETERMINISTIC and node.args and constant(node.args[0]) is True:
            return node
    return None


@register_rule
class CudnnBenchmarkWithDeterministic(Rule):
    """cuDNN autotuning switched on in code that asks for deterministic results.

    What it finds: `torch.backends.cudnn.benchmark = True` in the same function (or at module
    level of the same file) as `torch.backends.cudnn.deterministic = True` or
    `torch.use_deterministic_algorithms(True)`. Turning benchmark on in a throughput script that asks
    for no determinism is not flagged, nor is `benchmark = False` next to `deterministic = True`.
    Why it matters: with `benchmark=True` cuDNN times several convolution algorithms on the first
    batches and keeps the fastest, and the winner can change from run to run (timing noise, other
    jobs on the GPU). The seeds and the deterministic flag then promise a reproducible run that the
    algorithm choice quietly breaks: two runs with the same seed diverge.
    How to confirm: run the same seeded training twice for a few hundred steps and compare the losses
    bit for bit; they drift apart with `benchmark=True` and agree with `benchmark=False`.
    What to do instead: when the run must be reproducible set `torch.backends.cudnn.benchmark =
    False` (and keep `deterministic = True`); keep benchmark on only where speed matters more than
    repeatability, and then drop the claim of determinism.
    """

    id = "cudnn-benchmark-with-deterministic"
    category = "reproducibility"
    severity = "warning"
    triggers = ("benchmark",)
    requires = (("deterministic",),)

    def check(self, ctx: FileContext):
        # One pass over the assignments finds the scopes that switch benchmark on; only those are walked.
        scopes: dict[ast.AST, None] = {}
        for node in ctx.nodes_of(ast.Assign):
            if constant(node.value) is True and any(  # type: ignore[attr-defined]
                isinstance(t, ast.Attribute) and t.attr == "benchmark" for t in node.targets  # type: ignore[attr-defined]
            ):
                scopes.setdefault(ctx.enclosing_function(node) or ctx.tree, None)
        for scope in scopes:
            benches = _flag_sets(ctx, scope, _BENCHMARK)
            if not benches:
                continue
            asks = _asks_determinism(ctx, scope)
            if asks is None:
                continue
            for bench in benches:
                yield self.finding(
                    ctx,
                    bench,
                    "cudnn.benchmark = True lets cuDNN pick convolution algorithms by timing, so runs differ even though "
                    f"this code asks for determinism ({ctx.segment(asks, 60)} at line {asks.lineno})",
                    observation=f"{ctx.segment(bench, 60)} at line {bench.lineno}; {ctx.segment(asks, 60)} at line {asks.lineno}",
                )

"""The ``parameter-iterator-reused`` rule: a one-shot iterator of parameters read twice; the second read sees nothing."""

from __future__ import annotations

from mlsleuth.scan.analysis import one_shot_iterables as one_shot
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.registry import Rule, register_rule


def _second(reuse: one_shot.Reuse) -> str:
    return "the same read on the next pass of the loop" if reuse.again_in_loop else reuse.second.how


@register_rule
class ParameterIteratorReused(Rule):
    """A one-shot iterator of parameters (`model.parameters()`, a generator) read twice.

    What it finds: a generator such as `model.parameters()`, `filter(lambda p: p.requires_grad, ...)` or
    `(p for p in ...)` bound to a name, or passed to a helper, and then run to its end twice: two `for`
    loops over it, an optimizer built from it and then `clip_grad_norm_` on it, a helper that sums the
    squared gradient norms in one loop and rescales in a second.
    Why it matters: a generator is exhausted after the first pass. The second reader gets nothing and
    says nothing: `clip_grad_norm_` clips no parameter and returns 0, the rescaling loop never runs, an
    optimizer built second has an empty parameter list (that one raises), a norm computed second is 0.
    Training runs on without the clipping or the update it was written to have.
    How to confirm: print `len(list(x))` right before the second use: it is 0. Or print the value the
    second use returns (the total norm of `clip_grad_norm_` is 0.0).
    What to do instead: materialise it once: `params = list(model.parameters())` (or `[p for p in ...]`),
    or call `model.parameters()` again at each use.
    """

    id = "parameter-iterator-reused"
    category = "training-loop"
    severity = "warning"
    reach = "project"
    triggers = ("parameters(", "filter(", "named_parameters(", " for ")

    def check(self, ctx: FileContext):
        for scope, bind, name, kind, value in one_shot.local_bindings(ctx):
            if not kind.over_parameters:
                continue  # other one-shot iterables: one-shot-iterable-reused
            reuse = one_shot.consumed_twice(ctx, scope, name, bind.lineno)
            if reuse is None:
                continue
            second = reuse.second.node
            yield self.finding(
                ctx,
                second,
                f"`{name}` is a one-shot iterator ({ctx.segment(value, 50)}, line {bind.lineno}) read to its end "
                f"by {reuse.first.how} and again by {_second(reuse)}: the second read sees no parameters and does nothing",
                next_test=f"Print len(list({name})) right before line {second.lineno}: 0 confirms it.",
            )
        for _cls, attr, value, kind, reuse, where in one_shot.attribute_reuses(ctx):
            if kind.over_parameters:
                yield self.finding(
                    ctx,
                    reuse.second.node,
                    f"`self.{attr}` is a one-shot iterator ({ctx.segment(value, 50)}, line {value.lineno}) read to its "
                    f"end by {reuse.first.how} in {where} and again by {_second(reuse)}: the second read sees no "
                    "parameters and does nothing",
                    next_test=f"Print len(list(self.{attr})) right before line {reuse.second.node.lineno}: 0 confirms it.",
                )
        yield from self._helper_reads_twice(ctx)

    def _helper_reads_twice(self, ctx: FileContext):
        """``helper(model.parameters())`` where ``helper`` loops over that parameter twice."""
        for call in ctx.calls():
            for arg in call.args:
                kind = one_shot.one_shot(ctx, arg)
                if kind is None or not kind.over_parameters:
                    continue
                found = one_shot.helper_reads_twice(ctx, call, arg)
                if found is None:
                    continue
                hctx, func, param, reuse = found
                line = reuse.second.node.lineno
                where = f"line {line}" if hctx is ctx else f"{hctx.display_path}, line {line}"
                yield self.finding(
                    ctx,
                    arg,
                    f"{ctx.segment(arg, 50)} is a one-shot iterator, and {func.name}() reads its `{param}` twice "
                    f"({reuse.first.how}, then {_second(reuse)} at {where}): the second pass sees no parameters and does nothing",
                    next_test=f"Print len(list({param})) at the top of the second loop in {func.name}(): 0 confirms it.",
                )

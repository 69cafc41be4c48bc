"""The ``one-shot-iterable-reused`` rule: a generator, iterator or file read to its end and then read again."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import one_shot_iterables as one_shot
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.registry import Rule, register_rule


def _again(reuse: one_shot.Reuse, where: str = "") -> str:
    if reuse.again_in_loop and isinstance(reuse.loop, ast.expr):
        return f"again for every later item of the comprehension's outer `for`{where}: only the first item sees any"
    if reuse.again_in_loop:
        return f"on every later pass of the loop around it{where}: every pass after the first reads nothing"
    return f"again by {reuse.second.how} (line {reuse.second.node.lineno}){where}: that read sees nothing"


@register_rule
class OneShotIterableReused(Rule):
    """A generator, iterator or file read to its end, then read again (it is empty).

    What it finds: a one-shot iterable — a generator expression or a generator function's result, `zip`,
    `map`, `filter`, `iter`, `enumerate`, a finite `itertools` iterator, `Path.rglob`, `os.walk`, `csv.reader`,
    a file object — bound to a name (or kept on `self`) and run to its end more than once: read inside an
    epoch loop while it was made before the loop (or by a method called in a loop), read by two consumers
    one after the other (`list(gen)` then `for x in gen`), passed to a helper, in this module or another,
    that reads it twice, or returned by a Lightning `train_dataloader`/`val_dataloader` hook (the Trainer
    iterates the returned object again at every epoch). Lists, `DataLoader`s and other re-iterable objects, an iterator re-created inside
    the loop, `next(it)`, `itertools.cycle`, reads that may stop early (`break`, `zip`, `islice`) and reads in
    branches that exclude each other are not reported; parameter iterators are `parameter-iterator-reused`.
    Why it matters: an iterator is empty after its first full pass and says nothing when read again. The
    second epoch trains on no batch (and the epoch's loss is reported as 0 or NaN), the evaluation after the
    training loop sees no sample, a file's lines are read once and the second pass gets none.
    How to confirm: print `len(list(x))` right before the second read, or count the batches each epoch
    sees: 0 after the first pass confirms it.
    What to do instead: materialise it once (`pairs = list(zip(xs, ys))`), or make a fresh iterator at
    every use (build the generator or call `iter(...)` inside the epoch loop; `f.seek(0)` for a file).
    """

    id = "one-shot-iterable-reused"
    category = "data"
    severity = "warning"
    reach = "project"
    triggers = (" for ", "zip(", "map(", "filter(", "iter(", "open(", "csv.", "itertools", "glob(", "walk(")

    def check(self, ctx: FileContext):
        bound: dict[tuple[int, str], one_shot.OneShot] = {}
        for scope, bind, name, kind, value in one_shot.local_bindings(ctx):
            if kind.over_parameters or (kind.is_file and one_shot.rewound(ctx, scope, name)):
                continue
            bound[id(scope), name] = kind
            reuse = one_shot.consumed_twice(ctx, scope, name, bind.lineno)
            if reuse is not None and kind.is_file and isinstance(reuse.loop, ast.While):
                continue  # polling a file that grows (`while True: for line in f: ...; sleep(1)`)
            if reuse is not None:
                bound.pop((id(scope), name))
                yield self.finding(
                    ctx,
                    reuse.second.node,
                    f"`{name}` is {kind.label} (line {bind.lineno}), read to its end by {reuse.first.how} "
                    f"(line {reuse.first.node.lineno}) and {_again(reuse)}",
                    next_test=f"Print len(list({name})) right before line {reuse.second.node.lineno}: 0 confirms it.",
                )
        for _cls, attr, value, kind, reuse, where in one_shot.attribute_reuses(ctx):
            if kind.over_parameters:
                continue
            yield self.finding(
                ctx,
                reuse.second.node,
                f"`self.{attr}` is {kind.label} (line {value.lineno}), read to its end by {reuse.first.how} in "
                f"{where}, and {_again(reuse)}",
                next_test=f"Count the items read on line {reuse.first.node.lineno} on the second call: 0 confirms it.",
            )
        for hook, ret, kind in one_shot.hook_returns(ctx):
            yield self.finding(
                ctx,
                ret,
                f"{hook.name}() returns {kind.label}: Lightning keeps what the hook returns and iterates it again at "
                "every epoch, so every epoch after the first sees no batch",
                next_test="Log the number of batches per epoch (or `trainer.num_training_batches`): 0 after the first epoch.",
            )
        for call in ctx.calls():
            for arg in call.args:
                kind = one_shot.one_shot(ctx, arg) if not isinstance(arg, ast.Name) else bound.get(
                    (id(ctx.enclosing_function(arg) or ctx.tree), arg.id))
                if kind is None or kind.over_parameters:
                    continue
                found = one_shot.helper_reads_twice(ctx, call, arg)
                if found is None:
                    continue
                hctx, func, param, reuse = found
                where = "" if hctx is ctx else f" in {hctx.display_path}"
                yield self.finding(
                    ctx,
                    arg,
                    f"{ctx.segment(arg, 50)} is {kind.label}, and {func.name}(){where} reads its `{param}` to the end "
                    f"by {reuse.first.how} (line {reuse.first.node.lineno}) and {_again(reuse)}",
                    next_test=f"Print len(list({param})) before line {reuse.second.node.lineno} of {func.name}(): 0 confirms it.",
                )

"""The ``computed-tensor-unused`` rule: a tensor transformed from live values and then lost unread."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import dead_values
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.registry import Rule, register_rule


def _inputs(expr: ast.AST) -> list[str]:
    names: list[str] = []
    for node in ast.walk(expr):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id != "self" and node.id not in dead_values.MODULE_NAMES and node.id not in names:
            names.append(node.id)
    return names


_LOSS_TAILS = ("loss", "cross_entropy", "kl_div", "binary_cross_entropy_with_logits")


def _objective_term(ctx: FileContext, dead: dead_values.DeadValue) -> bool:
    """The lost value is a loss term: named like one (``aux_loss``, ``kl``) or computed by a loss function."""
    if dead_values.objective_name(dead.name):
        return True
    call = dead.value
    if isinstance(call, ast.Call):
        qual = ctx.qualname(call.func) or ""
        return qual.startswith("torch.") and qual.endswith(_LOSS_TAILS)
    return False


@register_rule
class ComputedTensorUnused(Rule):
    """A tensor computed from live values and then lost: overwritten before it is read, or never read.

    What it finds: an assignment whose value is a pure transformation of other values (a torch or
    `torch.nn.functional` call, a pure tensor method such as `.clamp()`, `.masked_fill()`, `.view()`,
    a stateless layer of the module such as `self.dropout(h)`, a project function, method or module
    whose body the scan shows to be pure (no effect on arguments, attributes or globals, only pure calls,
    a computed value returned: `h = self.block(x)`, `z = normalize(emb)`), or arithmetic over those) whose result
    nothing reads: either the next assignment to the same name in the same block replaces it before
    any read (`h = self.dropout(h)` followed by `h = self.fc(x)`), or no expression of the function
    (or of a script's module-level loop) ever reads the name; a never-read value is a warning when it is a loss
    term (named like one, or computed by a torch loss function) and `info` otherwise (often plain dead code).
    An overwrite by a plain read (`mask = window_mask`), by the same expression again or by an expression that
    contains the first one (or is contained in it) reads as a deliberate replacement and is not reported. Factories (`torch.zeros`), calls of
    whole models and of project code that logs, mutates, asserts or calls what the scan cannot resolve (which may act through hooks or running statistics), in-place
    variants and tuple targets are left alone, as are names starting with `_` and functions that read
    names dynamically (`locals()`, `eval`).
    Why it matters: a lost result is a step of the computation that silently does not happen: the
    dropout or normalisation that never reaches the next layer, the augmented batch that is built but
    the raw one trained on, the auxiliary loss term computed and never added, the mask applied to a
    copy that is thrown away. Training runs and converges to something; nothing crashes. The
    overwrite shape is the classic wrong-variable slip (the next line reads `x` where it meant `h`).
    How to confirm: read the two lines the finding names; print or assert on the value the next line
    reads (is it the transformed one?); or delete the flagged line and see that the output does not
    change: then the line had no effect.
    What to do instead: feed the result into what follows (`h = self.fc(h)`, `loss = ce + aux`,
    `model(x_aug)`), or delete the line if the step is really not wanted.
    """

    id = "computed-tensor-unused"
    category = "training-loop"
    severity = "warning"
    # arithmetic over project values needs no torch word in the file: any assignment can hold a dead value
    triggers = ("=",)

    def check(self, ctx: FileContext):
        for dead in dead_values.dead_values(ctx):
            shown = ctx.segment(dead.value, 60)
            if dead.overwritten_by is not None:
                later = dead.overwritten_by
                value = later.value if isinstance(later, (ast.Assign, ast.AnnAssign)) else later
                reads = [n for n in _inputs(value) if n != dead.name]
                source = f"from `{'`, `'.join(reads[:3])}`" if reads else "without reading it"
                message = (
                    f"`{dead.name} = {shown}` is overwritten on line {later.lineno} before anything reads it: "
                    f"line {later.lineno} computes `{dead.name}` {source}, so this step has no effect "
                    f"(did line {later.lineno} mean to use `{dead.name}`?)"
                )
                yield self.finding(ctx, dead.stmt, message)
                continue
            where = ctx.enclosing_function_name(dead.stmt)
            scope = f"`{where}`" if where else "the loop"
            if _objective_term(ctx, dead):
                message = (f"`{dead.name} = {shown}` is never read in {scope}: this loss term is computed and "
                           "never reaches the objective or the log")
                yield self.finding(ctx, dead.stmt, message)
            else:
                message = (f"`{dead.name} = {shown}` is never read in {scope}: the value is computed and dropped "
                           "(dead code, or a step that was meant to feed what follows)")
                yield self.finding(ctx, dead.stmt, message, severity="info")

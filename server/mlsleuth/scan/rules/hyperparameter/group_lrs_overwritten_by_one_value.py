"""The ``group-lrs-overwritten-by-one-value`` rule: a hand-written schedule writes one learning rate into every
parameter group of an optimizer whose groups were given different learning rates."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, constant, dotted
from mlsleuth.scan.registry import Rule, register_rule

# a parameter group with a learning rate of its own: {"params": ..., "lr": ...} (either order) or dict(params=..., lr=...)
_GROUP_LR = re.compile(r"""["']params["']\s*:[^{}]*?["']lr["']\s*:|["']lr["']\s*:[^{}]*?["']params["']\s*:|"""
                       r"""\bdict\(\s*params\s*=(?:[^()]|\([^()]*\))*?\blr\s*=""")


def _group_loop_target(loop: ast.For) -> str | None:
    """``g`` for ``for g in <x>.param_groups:`` (not ``zip(param_groups, base_lrs)``, which pairs each group
    with its own base rate)."""
    if isinstance(loop.target, ast.Name) and isinstance(loop.iter, ast.Attribute) and loop.iter.attr == "param_groups":
        return loop.target.id
    return None


def _reads(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def _group_lr_assignment(stmt: ast.stmt, group: str) -> ast.Assign | None:
    """``group["lr"] = value`` where ``value`` does not read the group itself."""
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
        return None
    target = stmt.targets[0]
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == group \
            and constant(target.slice) == "lr" and not _reads(stmt.value, group):
        return stmt
    return None


def _one_parameters_call(value: ast.AST | None) -> bool:
    """``torch.optim.Adam(model.parameters(), ...)``: an optimizer built from one ``.parameters()``."""
    first = value.args[0] if isinstance(value, ast.Call) and value.args else None
    return isinstance(first, ast.Call) and isinstance(first.func, ast.Attribute) and first.func.attr == "parameters" \
        and not first.args


def _single_group_optimizer(ctx: FileContext, receiver: str, node: ast.AST) -> bool:
    """Whether the optimizer at ``receiver`` has one parameter group: every optimizer this file assigns to it is
    built from one ``<module>.parameters()`` (``optimizer = torch.optim.Adam(model.parameters(), lr=0.01)``), or
    it is ``self.<attr>`` of a wrapper class (a Noam-style rate wrapper) whose ``__init__`` stores a parameter
    that every constructor call passes such an optimizer. One group, whatever other scripts of the project do,
    so writing one rate into "every" group erases nothing."""
    if receiver.startswith("self.") and receiver.count(".") == 1:
        return _stored_single_group(ctx, receiver.split(".", 1)[1], node)
    built = False
    for assign in ctx.nodes_of(ast.Assign):
        if not any(dotted(t) == receiver for t in assign.targets):  # type: ignore[attr-defined]
            continue
        if not _one_parameters_call(assign.value):  # type: ignore[attr-defined]
            return False
        built = True
    return built


def _stored_single_group(ctx: FileContext, attr: str, node: ast.AST) -> bool:
    cls = ctx.enclosing_class(node)
    init = ctx.method(cls, "__init__") if cls is not None else None
    if init is None:
        return False
    stored = [a.value for a in ast.walk(init) if isinstance(a, ast.Assign)
              and any(dotted(t) == f"self.{attr}" for t in a.targets)]
    if len(stored) != 1 or not isinstance(stored[0], ast.Name):
        return False
    param = stored[0].id
    sites = value_origins.all_call_sites(ctx, init)
    if not sites:
        return False
    for sctx, site in sites:
        arg = value_origins.argument_for(site, init, param)
        bound = value_origins.value(sctx, arg) if isinstance(arg, ast.Name) else arg
        if not _one_parameters_call(bound):
            return False
    return True


@register_rule
class GroupLrsOverwrittenByOneValue(Rule):
    """A schedule writes one learning rate into every parameter group.

    What it finds: `for g in optimizer.param_groups: g["lr"] = lr` where `lr` does not depend on the group
    (it is not read from `g`, nor paired with the group's own base rate through `zip(param_groups,
    base_lrs)`), in a scheduler class's `step`/`get_lr`, an `adjust_learning_rate` helper or a training loop,
    when the project builds an optimizer from parameter groups that carry learning rates of their own
    (`{"params": encoder.parameters(), "lr": 1e-5}`, `dict(params=..., lr=...)`). Not flagged: projects whose
    optimizers have a single rate, an optimizer this file builds from one `model.parameters()` (one group,
    whatever the other scripts of the repository do; also when a wrapper class stores it as `self.optimizer`
    and every constructor call passes such an optimizer), updates that scale each group's rate (`g["lr"] *= 0.1`,
    `g["lr"] = base * g["lr_scale"]`).
    Why it matters: discriminative learning rates (a small rate for a pretrained encoder, a larger one for a
    new head; no decay or a different rate for embeddings) are set once, when the optimizer is built. A
    schedule that computes one number and assigns it to every group replaces them all on its first step: the
    pretrained encoder trains at the head's rate (and forgets), or the head at the encoder's (and barely
    learns), with no error.
    How to confirm: print `[g["lr"] for g in optimizer.param_groups]` after the first scheduler step: the
    values are all equal.
    What to do instead: scale each group's own base rate by the schedule's factor
    (`for g, base in zip(optimizer.param_groups, self.base_lrs): g["lr"] = base * factor`), or use
    `torch.optim.lr_scheduler.LambdaLR` with a factor function.
    """

    id = "group-lrs-overwritten-by-one-value"
    category = "hyperparameter"
    severity = "warning"
    reach = "project"
    triggers = ("param_groups",)
    requires = (("lr",),)

    def check(self, ctx: FileContext):
        per_group = None
        for loop in ctx.nodes_of(ast.For):
            group = _group_loop_target(loop)  # type: ignore[arg-type]
            if group is None:
                continue
            for stmt in loop.body:  # type: ignore[attr-defined]
                assign = _group_lr_assignment(stmt, group)
                if assign is None:
                    continue
                if per_group is None:
                    per_group = _GROUP_LR.search(ctx.source) is not None or (
                        ctx.project is not None and ctx.project.any_file_matches(_GROUP_LR))
                if not per_group:
                    return
                receiver = dotted(loop.iter.value)  # type: ignore[attr-defined]
                if receiver and _single_group_optimizer(ctx, receiver, loop):
                    break
                yield self.finding(
                    ctx,
                    assign,
                    f"every parameter group of `{dotted(loop.iter.value) or 'the optimizer'}` gets the same learning rate "  # type: ignore[attr-defined]
                    f"`{ctx.segment(assign.value, 40)}`, while this project builds optimizers whose groups have rates of "
                    "their own: the first step erases the per-group rates",
                    observation=ctx.segment(assign, 80),
                    next_test="Print [g['lr'] for g in optimizer.param_groups] after one scheduler step: the values are equal.",
                )

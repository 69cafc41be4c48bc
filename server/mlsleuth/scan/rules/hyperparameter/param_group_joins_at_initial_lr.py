"""The ``param-group-joins-at-initial-lr`` rule: a group added mid-run starts at the initial learning rate."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method, constant
from mlsleuth.scan.analysis.training_step_model import loop_model
from mlsleuth.scan.registry import Rule, register_rule

# an lr read from the optimizer's or scheduler's current state
_CURRENT_LR = frozenset({"param_groups", "get_last_lr", "get_lr", "_last_lr", "last_lr"})


def _group_lr(ctx: FileContext, group: ast.AST | None) -> tuple[bool, ast.AST | None] | None:
    """(has an lr key, its value) for a dict literal / ``dict(...)`` group; None when the group is not readable or
    carries ``initial_lr`` (a schedule that recomputes every group from its own start)."""
    if isinstance(group, ast.Name):
        group = ctx.value_of(group)
    keys: dict[str, ast.AST] = {}
    if isinstance(group, ast.Dict):
        for k, v in zip(group.keys, group.values):
            if k is None:
                return None  # ``**other``: unknown keys
            if isinstance(constant(k), str):
                keys[constant(k)] = v  # type: ignore[index]
    elif isinstance(group, ast.Call) and isinstance(group.func, ast.Name) and group.func.id == "dict" and not group.args:
        for kw in group.keywords:
            if kw.arg is None:
                return None
            keys[kw.arg] = kw.value
    else:
        return None
    if "params" not in keys or "initial_lr" in keys:
        return None
    return ("lr" in keys), keys.get("lr")


def _reads_current_lr(ctx: FileContext, expr: ast.AST, depth: int = 0) -> bool:
    for node in ast.walk(expr):
        if isinstance(node, ast.Attribute) and node.attr in _CURRENT_LR:
            return True
        if isinstance(node, ast.Call) and call_method(node) in _CURRENT_LR:
            return True
        if isinstance(node, ast.Subscript) and constant(node.slice) == "lr" and _param_groups_owner(ctx, node.value):
            return True  # ``group["lr"]`` of one of the optimizer's groups: its current lr
        if isinstance(node, ast.Name) and depth < 3:
            value = ctx.value_of(node)
            if value is not None and value is not node and _reads_current_lr(ctx, value, depth + 1):
                return True
    return False


def _lr_of(target: ast.AST) -> ast.AST | None:
    """The group expression of ``group["lr"]``."""
    if isinstance(target, ast.Subscript) and constant(target.slice) == "lr":
        return target.value
    return None


def _relative_lr_owners(ctx: FileContext, root: ast.AST) -> set[str]:
    """Roots of the optimizers whose groups' lr ``root`` scales relative to its current value:
    ``for g in opt.param_groups: g["lr"] *= gamma`` or ``g["lr"] = g["lr"] * gamma`` (not an lr recomputed
    from the epoch, which covers a new group too)."""
    owners: set[str] = set()
    for node in [root, *ctx.walk_scope(root)]:
        if isinstance(node, ast.AugAssign):
            target, relative = node.target, True
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            group = _lr_of(target)
            relative = group is not None and any(
                isinstance(n, ast.Subscript) and constant(n.slice) == "lr" and value_origins.root_name(n) == value_origins.root_name(group)
                for n in ast.walk(node.value))
        else:
            continue
        group = _lr_of(target)
        if group is None or not relative:
            continue
        owner = _param_groups_owner(ctx, group)
        if owner:
            owners.add(owner)
    return owners


def _param_groups_owner(ctx: FileContext, group: ast.AST) -> str | None:
    """``opt`` for ``opt.param_groups[i]`` or for ``g`` in ``for g in opt.param_groups``."""
    if isinstance(group, ast.Subscript) and isinstance(group.value, ast.Attribute) and group.value.attr == "param_groups":
        return value_origins.root_name(group.value)
    if isinstance(group, ast.Name):
        for loop in ctx.enclosing_loops(group):
            if isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) and loop.target.id == group.id \
                    and isinstance(loop.iter, ast.Attribute) and loop.iter.attr == "param_groups":
                return value_origins.root_name(loop.iter)
    return None


def _changes_lr(ctx: FileContext, region: ast.AST, opt: str) -> str | None:
    """Where ``region`` changes the lr of optimizer ``opt`` relative to its current value: a scheduler over it
    steps, its groups' lr is scaled, or a helper called with it does so. A short description, or None."""
    if opt in _relative_lr_owners(ctx, region):
        return f"line {region.lineno} scales its lr"
    model = loop_model(ctx)
    for node in [region, *ctx.walk_scope(region)]:
        if not isinstance(node, ast.Call):
            continue
        if call_method(node) == "step":
            info = model.object_of(node.func.value)  # type: ignore[attr-defined]
            if info is not None and info.kind == "scheduler" and info.construction is not None and info.construction.args \
                    and value_origins.root_name(info.construction.args[0]) in (opt, None):
                return f"the {info.name} scheduler steps at line {node.lineno}"
            continue
        passed = [p for p, a in _passed(node) if value_origins.root_name(a) == opt]
        if not passed:
            continue
        found = value_origins.helper_definition(ctx, node)
        if found is None:
            continue
        hctx, func = found
        for param in value_origins.function_params(func):
            arg = value_origins.argument_for(node, func, param)
            if arg is not None and value_origins.root_name(arg) == opt and param in _relative_lr_owners(hctx, func):
                return f"`{getattr(func, 'name', 'a helper')}` (line {node.lineno}) scales its lr"
    return None


def _passed(call: ast.Call) -> list[tuple[int, ast.AST]]:
    return [*enumerate(call.args), *((-1, k.value) for k in call.keywords)]


def _sites(ctx: FileContext, call: ast.Call, opt: str) -> list[tuple[FileContext, ast.AST, str]]:
    """(file, node, optimizer root) where the add runs: the call itself, or, when the optimizer is a parameter of
    its function, each call of that function with the argument's root."""
    func = ctx.enclosing_function(call)
    if func is None or opt not in value_origins.function_params(func):
        return [(ctx, call, opt)]
    out = []
    for sctx, site in value_origins.all_call_sites(ctx, func)[:8]:
        arg = value_origins.argument_for(site, func, opt)
        root = value_origins.root_name(arg) if arg is not None else None
        if root:
            out.append((sctx, site, root))
    return out


def _lr_changed_before(ctx: FileContext, site: ast.AST, opt: str) -> str | None:
    """The optimizer's lr was changed before ``site`` runs: by a loop around it (an earlier iteration), or by a loop
    that ran before it in the same function."""
    for loop in ctx.enclosing_loops(site):
        found = _changes_lr(ctx, loop, opt)
        if found:
            return found
    scope = ctx.enclosing_function(site) or ctx.tree
    for node in ctx.walk_scope(scope):
        if isinstance(node, (ast.For, ast.While)) and getattr(node, "end_lineno", 0) < site.lineno:
            found = _changes_lr(ctx, node, opt)
            if found:
                return found
    return None


@register_rule
class ParamGroupJoinsAtInitialLr(Rule):
    """A parameter group added mid-run starts at the initial lr.

    What it finds: `optimizer.add_param_group({"params": ...})` with no `lr` (the group takes the optimizer's
    initial default) or with an `lr` that is not read from the current state (`cfg["lr"]`, `args.lr`, a
    constant), run after the optimizer's learning rate was changed relative to its value — by a scheduler over
    it that steps, or a loop scaling `group["lr"] *= gamma` (directly or in a helper) — in a loop around the
    add (the unfreeze epoch of a training loop, also through a helper the loop calls) or in a loop before it.
    A group whose lr comes from `optimizer.param_groups[0]["lr"]` or `scheduler.get_last_lr()`, or that
    carries `initial_lr` for a schedule that recomputes every group from the epoch, is left alone.
    Why it matters: the other groups have been decayed while the new one joins at the start value, often
    ten or a hundred times larger: the freshly unfrozen pretrained layers take huge steps that wreck their
    features (the loss jumps at the unfreeze epoch); schedulers that keep a list of base lrs may also never
    scale the new group, or fail on the next step.
    How to confirm: print `[g["lr"] for g in optimizer.param_groups]` right after the add: the new group's
    lr is far above the others'.
    What to do instead: give the group the current lr (`optimizer.param_groups[0]["lr"]`, or that divided by a
    factor for a backbone), and, with a torch scheduler, build the scheduler again after adding the group.
    """

    id = "param-group-joins-at-initial-lr"
    category = "hyperparameter"
    severity = "warning"
    reach = "project"
    triggers = ("add_param_group",)

    def check(self, ctx: FileContext):
        for call in ctx.calls():
            if call_method(call) != "add_param_group" or not call.args:
                continue
            lr = _group_lr(ctx, call.args[0])
            if lr is None:
                continue
            has_lr, value = lr
            if has_lr and (value is None or _reads_current_lr(ctx, value)):
                continue
            opt = value_origins.root_name(call.func.value)  # type: ignore[attr-defined]
            if not opt:
                continue
            for sctx, site, root in _sites(ctx, call, opt):
                found = _lr_changed_before(sctx, site, root)
                if not found:
                    continue
                where = "" if sctx is ctx else f" in {sctx.display_path}"
                given = f"`lr` {ctx.segment(value, 40)}" if has_lr else "no `lr` (the optimizer's initial default)"
                yield self.finding(
                    ctx,
                    call,
                    f"this parameter group joins with {given} after the optimizer's lr was changed ({found}{where}):"
                    " the new group starts at the undecayed initial lr while the others run at the scheduled one",
                    observation=ctx.segment(call, 120),
                    next_test="print `[g['lr'] for g in optimizer.param_groups]` right after this line: the new group's"
                    " lr is far above the others'",
                )
                break

"""The ``lr-set-on-some-groups-only`` rule: a hand-written LR schedule updates some parameter groups and not the others."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import optimizer_params
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, constant, dotted
from mlsleuth.scan.analysis.training_step_model import classify_construction
from mlsleuth.scan.registry import Rule, register_rule


@register_rule
class LrSetOnSomeGroupsOnly(Rule):
    """A manual LR update misses some parameter groups.

    What it finds: (1) `optimizer.param_groups[0]["lr"] = lr` (constant indices) where the optimizer is
    built in the file with more groups than the indices written, and the groups left out have no `"lr"` of
    their own (they were split off for another reason, typically no weight decay on biases and norms);
    (2) `g["lr"] = lr` written after, instead of inside, `for g in optimizer.param_groups:`, which updates
    only the last group. Nothing is reported when any loop over `param_groups` sets the LR, or when the
    optimizer is known to have a single group.
    Why it matters: the groups the update misses keep the initial learning rate for the whole run: no
    warm-up and no decay for them. With the usual decay/no-decay split, every bias and normalisation
    weight trains at full LR until the end while the logged LR (read from group 0) looks right.
    How to confirm: print `[g["lr"] for g in optimizer.param_groups]` late in training: the values differ,
    and the missed groups still show the initial LR.
    What to do instead: `for g in optimizer.param_groups: g["lr"] = lr` (scaled by a per-group factor if
    the groups are meant to differ), or an `lr_scheduler`, which updates every group.
    """

    id = "lr-set-on-some-groups-only"
    category = "hyperparameter"
    severity = "warning"
    triggers = ("param_groups",)
    requires = (("lr",),)

    def check(self, ctx: FileContext):
        loops_set_lr = _loop_sets_lr(ctx)
        yield from self._after_loop(ctx)
        if loops_set_lr:
            return
        written: dict[str, list[tuple[ast.Assign, int]]] = {}
        for assign in ctx.nodes_of(ast.Assign):
            for target in assign.targets:
                hit = _indexed_group_lr(target)
                if hit is None:
                    continue
                opt, index = hit
                if index is None:
                    return  # a computed index: some loop or helper picks the groups
                written.setdefault(opt, []).append((assign, index))
        for opt, writes in written.items():
            groups = _groups(ctx, opt)
            if groups is None or len(groups) < 2:
                continue
            indices = {i for _a, i in writes}
            missed = [i for i in range(len(groups)) if i not in indices and i - len(groups) not in indices]
            if not missed or any(_has_own_lr(groups[i]) for i in missed):
                continue
            first = min(writes, key=lambda w: w[0].lineno)[0]
            yield self.finding(
                ctx,
                first,
                f"the learning rate is written into group(s) {sorted(indices)} of `{opt}`, which has {len(groups)} groups:"
                f" group(s) {missed} keep the initial LR for the whole run",
                observation=ctx.segment(first, 120),
                next_test=f"print `[g['lr'] for g in {opt}.param_groups]` late in training: the missed groups show the initial LR",
            )

    def _after_loop(self, ctx: FileContext):
        """``for g in opt.param_groups: ...`` then ``g["lr"] = ...`` after the loop, at the same level."""
        for loop in ctx.nodes_of(ast.For):
            if not (isinstance(loop.target, ast.Name) and _is_param_groups(loop.iter)):
                continue
            var = loop.target.id
            if _sets_lr(loop.body, var):
                continue
            parent = ctx.parent(loop)
            body = next((getattr(parent, f) for f in ("body", "orelse", "finalbody")
                         if isinstance(getattr(parent, f, None), list) and loop in getattr(parent, f)), None)
            if body is None:
                continue
            after = body[body.index(loop) + 1:]
            for stmt in after[:3]:
                if isinstance(stmt, ast.Assign) and any(_lr_key_of(t, var) for t in stmt.targets):
                    if _single_group(ctx, dotted(loop.iter.value) or ""):  # type: ignore[attr-defined]
                        break
                    yield self.finding(
                        ctx,
                        stmt,
                        f"`{ctx.segment(stmt, 60)}` runs after the loop over `{ast.unparse(loop.iter)}` (line {loop.lineno}),"
                        " so only the last parameter group gets the new learning rate",
                        observation=ctx.segment(stmt, 120),
                        next_test="print `[g['lr'] for g in optimizer.param_groups]`: only the last group changes",
                    )
                    break


def _is_param_groups(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "param_groups"


def _lr_key_of(target: ast.AST, var: str) -> bool:
    return isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == var \
        and constant(target.slice) == "lr"


def _sets_lr(body: list[ast.stmt], var: str) -> bool:
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(_lr_key_of(t, var) for t in targets):
                    return True
            if isinstance(node, ast.Call) and any(isinstance(a, ast.Name) and a.id == var for a in node.args):
                return True  # handed to a helper that may set it
    return False


def _loop_sets_lr(ctx: FileContext) -> bool:
    """Some loop over ``param_groups`` (or a comprehension) writes ``["lr"]`` somewhere in the file."""
    for loop in ctx.nodes_of(ast.For):
        if isinstance(loop.target, ast.Name) and _is_param_groups(loop.iter) and _sets_lr(loop.body, loop.target.id):
            return True
        if isinstance(loop.target, ast.Tuple) and "param_groups" in ast.unparse(loop.iter):
            return True  # for i, g in enumerate(opt.param_groups)
        if isinstance(loop.iter, ast.Call) and "param_groups" in ast.unparse(loop.iter):
            return True  # for i in range(len(opt.param_groups))
    return False


def _indexed_group_lr(target: ast.AST) -> tuple[str, int | None] | None:
    """``opt.param_groups[i]["lr"]``: (optimizer text, i or None when computed)."""
    if not (isinstance(target, ast.Subscript) and constant(target.slice) == "lr"):
        return None
    inner = target.value
    if not (isinstance(inner, ast.Subscript) and _is_param_groups(inner.value)):
        return None
    opt = dotted(inner.value.value)  # type: ignore[attr-defined]
    if opt is None:
        return None
    index = constant(inner.slice)
    return opt, index if isinstance(index, int) and not isinstance(index, bool) else None


def _construction(ctx: FileContext, opt: str) -> ast.Call | None:
    found = None
    for assign in ctx.nodes_of(ast.Assign):
        if len(assign.targets) == 1 and dotted(assign.targets[0]) == opt:
            kind = classify_construction(ctx, assign.value)
            if kind is None or kind[0] != "optimizer":
                return None  # rebound to something else: unclear
            if found is not None:
                return None
            found = assign.value
    return found


def _groups(ctx: FileContext, opt: str) -> list[ast.Dict] | None:
    """The group dicts of the optimizer built as ``opt``, when they are a literal list of dicts."""
    construction = _construction(ctx, opt)
    if construction is None:
        return None
    params = optimizer_params.params_argument(construction)
    if isinstance(params, ast.Name):
        params = vo.local_value(ctx, params)
    if isinstance(params, (ast.List, ast.Tuple)) and params.elts and all(isinstance(e, ast.Dict) for e in params.elts):
        if all(k is not None for e in params.elts for k in e.keys):  # type: ignore[attr-defined]
            return list(params.elts)  # type: ignore[arg-type]
    return None


def _has_own_lr(group: ast.Dict) -> bool:
    return any(constant(k) == "lr" for k in group.keys)


def _single_group(ctx: FileContext, opt: str) -> bool:
    construction = _construction(ctx, opt)
    if construction is None:
        return False
    params = optimizer_params.params_argument(construction)
    return isinstance(params, ast.Call) and dotted(params.func) is not None and dotted(params.func).endswith(".parameters")  # type: ignore[union-attr]

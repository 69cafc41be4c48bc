"""The ``accuracy-counts-padding`` rule: a token accuracy over every position of a target whose loss ignores padding."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, keyword
from mlsleuth.scan.analysis.padding import unpacked_from_call
from mlsleuth.scan.registry import Rule, register_rule

_LOSS_FUNCS = frozenset({"torch.nn.functional.cross_entropy", "torch.nn.functional.nll_loss"})
_LOSS_CLASSES = frozenset({"torch.nn.CrossEntropyLoss", "torch.nn.NLLLoss", "torch.nn.modules.loss.CrossEntropyLoss",
                           "torch.nn.modules.loss.NLLLoss"})
_SHAPE_ONLY = frozenset({"reshape", "view", "flatten", "contiguous", "long", "to", "cpu", "detach", "squeeze", "unsqueeze",
                         "float", "int", "type", "clone"})
_CASTS = frozenset({"float", "double", "half", "type", "long", "int", "to", "cpu", "detach"})
_CUSTOM_BATCHES = re.compile(r"batch_sampler\s*=")


def _root(expr: ast.AST) -> str | None:
    """``target.reshape(-1)``, ``tgt[:, 1:]``, ``labels.view(-1).long()`` -> the name underneath."""
    while True:
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _SHAPE_ONLY:
            expr = expr.func.value
        elif isinstance(expr, ast.Subscript) and not isinstance(expr.slice, (ast.Compare, ast.Name)):
            expr = expr.value  # a slice (tgt[:, 1:]); a mask or index array would select positions
        elif isinstance(expr, ast.Name):
            return expr.id
        else:
            return None


def _ignoring_loss(ctx: FileContext, call: ast.Call) -> bool:
    """A cross-entropy / NLL call that skips a pad id: `ignore_index=` on the call or on the loss module it calls."""
    qual = vo.normalize(ctx.qualname(call)) or ""
    if qual in _LOSS_FUNCS:
        return keyword(call, "ignore_index") is not None
    bound = ctx.resolve(call.func)
    if bound is call.func and isinstance(call.func, ast.Name):  # a loss module built at module level
        entries = ctx.assignments(ctx.tree).get(call.func.id, [])
        bound = entries[-1][2] if len(entries) == 1 else None
    if isinstance(bound, ast.Call) and (vo.normalize(ctx.qualname(bound)) or "") in _LOSS_CLASSES:
        return keyword(bound, "ignore_index") is not None
    return False


def _loss_target(call: ast.Call) -> ast.AST | None:
    return call.args[1] if len(call.args) >= 2 else keyword(call, "target")


def _ignored_targets(ctx: FileContext, scope: ast.AST) -> dict[str, ast.Call]:
    """Names whose values are the target of a pad-ignoring loss in ``scope``."""
    found: dict[str, ast.Call] = {}
    for call in ctx.calls(scope):
        if _ignoring_loss(ctx, call):
            root = _root(_loss_target(call) or ast.Constant(None))
            if root is not None:
                found.setdefault(root, call)
    return found


def _reduced_over_all(ctx: FileContext, cmp: ast.AST) -> ast.AST | None:
    """``(p == t).float().mean()`` or ``torch.mean((p == t).float())``: the node that averages every position."""
    node = cmp
    while True:
        parent = ctx.parent(node)
        if isinstance(parent, ast.Attribute) and parent.value is node:
            call = ctx.parent(parent)
            if not (isinstance(call, ast.Call) and call.func is parent):
                return None
            if parent.attr in _CASTS:
                node = call
                continue
            if parent.attr == "mean" and not call.args and not call.keywords:
                return call
            if parent.attr == "sum" and not call.args and not call.keywords:
                return _divided_by_numel(ctx, call, cmp)
            return None
        if isinstance(parent, ast.Call) and node in parent.args and len(parent.args) == 1 and not parent.keywords:
            qual = ctx.qualname(parent) or ""
            if qual in {"torch.mean", "numpy.mean"}:
                return parent
            if qual in {"float"}:
                node = parent
                continue
        return None


def _divided_by_numel(ctx: FileContext, total: ast.Call, cmp: ast.AST) -> ast.AST | None:
    """``(p == t).sum().item() / t.numel()``: a count of matches over every position of one side."""
    node: ast.AST = total
    for anc in ctx.ancestors(total):
        if isinstance(anc, ast.BinOp) and isinstance(anc.op, ast.Div) and anc.left is node:
            den = anc.right
            if isinstance(den, ast.Call) and isinstance(den.func, ast.Attribute) and den.func.attr == "numel" and not den.args:
                sides = {_root(cmp.left), _root(cmp.comparators[0])} if isinstance(cmp, ast.Compare) else set()
                return anc if _root(den.func.value) in sides else None
            return None
        if isinstance(anc, ast.Call) and isinstance(anc.func, ast.Attribute) and anc.func.value is node and anc.func.attr in _CASTS | {"item"}:
            node = anc
            continue
        if isinstance(anc, ast.Attribute) and anc.value is node:
            continue
        if isinstance(anc, ast.Call) and (ctx.qualname(anc) or "") in {"float", "int"} and node in anc.args:
            node = anc
            continue
        return None
    return None


def _target_name_origin(ctx: FileContext, name: ast.Name, scope: ast.AST) -> tuple[FileContext, ast.AST, str] | None:
    """``logits, target, loss = self._losses(x)``: the helper and the name it returns in that position."""
    unpacked = unpacked_from_call(ctx, name, scope)
    if unpacked is None:
        return None
    call, position = unpacked
    found = vo.helper_definition(ctx, call)
    if found is None:
        return None
    hctx, helper = found
    roots = set()
    for value in vo.returns(helper):
        if not isinstance(value, (ast.Tuple, ast.List)) or position >= len(value.elts):
            return None
        roots.add(_root(value.elts[position]))
    if len(roots) != 1 or None in roots:
        return None
    return hctx, helper, roots.pop()


def _filtered(ctx: FileContext, name: str, scope: ast.AST) -> bool:
    """The name is rebound from a mask or a comparison in ``scope`` (``target = target[target != pad]``)."""
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            for n in ast.walk(node.value):
                if isinstance(n, ast.Compare) or (isinstance(n, ast.Name) and "mask" in n.id.lower()):
                    return True
                if isinstance(n, ast.Subscript) and not isinstance(n.slice, (ast.Slice, ast.Tuple, ast.Constant)):
                    return True  # target[keep]: positions selected
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in {"masked_select", "masked_fill", "where"}:
                    return True
    return False


@register_rule
class AccuracyCountsPadding(Rule):
    """Token accuracy counts pad positions the loss ignores.

    What it finds: `(preds == target).float().mean()` (also `torch.mean(...)`, or `(preds == target).sum() /
    target.numel()`, with casts in between) where
    `target` is also the target of a cross-entropy / NLL loss that skips a pad id (`ignore_index=` on
    `F.cross_entropy` or on the `nn.CrossEntropyLoss` it calls), in the same function or in the helper that
    returns both (`logits, target, loss = self._losses(batch)`), and the comparison is not restricted to
    the real tokens (`[mask]`, `& mask`, a filtered target).
    Why it matters: the loss never trains the pad positions, so what the model predicts there is
    arbitrary, yet every pad counts in the accuracy: with short sequences in long batches the number
    mostly measures the padding. With `-100` targets every pad counts as wrong. Checkpoint selection or
    early stopping on that metric follow the padding ratio, not the model.
    How to confirm: compute the accuracy once over all positions and once over `target != pad` only;
    they differ, and the gap follows the share of padding in the batch.
    What to do instead: average over the positions the loss uses:
    `mask = target != pad; acc = (preds == target)[mask].float().mean()`.
    """

    id = "accuracy-counts-padding"
    category = "evaluation"
    severity = "warning"
    reach = "project"
    triggers = ("ignore_index",)
    requires = (("==", "eq("), ("mean", "numel"))

    def check(self, ctx: FileContext):
        for cmp in ctx.nodes_of(ast.Compare):
            if len(cmp.ops) != 1 or not isinstance(cmp.ops[0], ast.Eq):
                continue
            reduced = _reduced_over_all(ctx, cmp)
            scope = ctx.enclosing_function(cmp)
            if reduced is None or scope is None:
                continue
            hit = self._padded_target(ctx, cmp, scope)
            if hit is None:
                continue
            name, where = hit
            if ctx.project is not None and ctx.project.package_matches(ctx, _CUSTOM_BATCHES):
                return  # custom batches may hold one length each: whether pads exist cannot be told
            yield self.finding(
                ctx,
                reduced,
                f"the accuracy averages `{ctx.segment(cmp, 40)}` over every position, but the loss on `{name}` ignores "
                f"the padding ({where}): pad positions count in the metric",
                observation=f"`{ctx.segment(reduced, 70)}`; the loss skips pads: {where}",
                next_test="Compute the accuracy again over target != pad only and compare; the gap follows the padding ratio.",
            )

    def _padded_target(self, ctx: FileContext, cmp: ast.Compare, scope: ast.AST) -> tuple[str, str] | None:
        local = _ignored_targets(ctx, scope)
        for side in (cmp.left, cmp.comparators[0]):
            root = _root(side)
            if root is None or _filtered(ctx, root, scope):
                continue
            if root in local:
                call = local[root]
                return root, f"`{ctx.segment(call, 60)}` at line {call.lineno}"
            if isinstance(side, ast.Name) or _root(side) is not None:
                name_node = next((n for n in ast.walk(side) if isinstance(n, ast.Name) and n.id == root), None)
                if name_node is None:
                    continue
                origin = _target_name_origin(ctx, name_node, scope)
                if origin is None:
                    continue
                hctx, helper, inner = origin
                remote = _ignored_targets(hctx, helper)
                if inner in remote and not _filtered(hctx, inner, helper):
                    call = remote[inner]
                    return root, f"`{hctx.segment(call, 60)}` in {helper.name}() at line {call.lineno}"  # type: ignore[attr-defined]
        return None

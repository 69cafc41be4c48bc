"""The ``ema-decay-inverted`` rule: an EMA update gives the decay to the new weights instead of the average."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext, call_method, keyword
from mlsleuth.scan.analysis.numeric_values import numbers
from mlsleuth.scan.registry import Rule, register_rule

# The online weights get at least this share per update, the average at most 1 - it: the copy follows the
# online model within a step or two, which no exponential average means to do.
ONLINE_SHARE = 0.9
_PAIRED = {"parameters", "buffers", "values"}
_PASSTHROUGH = {"data", "detach", "float", "to", "clone", "type_as", "half", "bfloat16"}


@register_rule
class EmaDecayInverted(Rule):
    """An EMA update puts the decay on the online weights.

    What it finds: in a loop over paired tensors of two models (`for ema_p, p in zip(ema.parameters(),
    model.parameters())`, also `state_dict().values()` and `buffers()`), an in-place update of the averaged
    copy — `ema_p.mul_(a).add_(p, alpha=b)`, `ema_p.copy_(a * ema_p + b * p)`, `ema_p.data = ...`,
    `ema_p.lerp_(p, b)` — where the share `b` of the online weights resolves (through constants, defaults,
    `self.decay` and what the callers pass) to 0.9 or more and the share `a` kept from the average to 0.1 or
    less: typically `decay = 0.999` written on the wrong term. Unresolved factors keep the rule silent.
    Why it matters: an exponential moving average is meant to change slowly (`ema = d * ema + (1 - d) * p`
    with d close to 1). With the factors swapped the "average" is a copy of the online model one step
    late: EMA evaluation, a momentum/teacher encoder (MoCo, BYOL, DINO, mean teacher) or a target network
    brings none of the smoothing or stability it is there for, and the reported EMA scores equal the raw ones.
    How to confirm: after an update, `max((e - p).abs().max() for e, p in zip(ema.parameters(),
    model.parameters()))` is tiny compared with one training step's change, every step.
    What to do instead: keep the large factor on the average: `ema_p.mul_(d).add_(p, alpha=1 - d)`,
    `ema_p.lerp_(p, 1 - d)`, or `torch.optim.swa_utils.AveragedModel(model,
    multi_avg_fn=get_ema_multi_avg_fn(d))`.
    """

    id = "ema-decay-inverted"
    category = "training-loop"
    severity = "warning"
    triggers = ("mul_(", "lerp_(", "copy_(", ".data =", ".data=")
    requires = (("zip(",),)

    def check(self, ctx: FileContext):
        for loop in ctx.nodes_of(ast.For):
            pair = _paired_targets(loop)
            if pair is None:
                continue
            for node in ast.walk(loop):
                found = _update(node, pair, loop)
                if found is None:
                    continue
                avg, online, keep_expr, take_expr, anchor = found
                keep = numbers(ctx, keep_expr) if keep_expr is not None else None
                take = numbers(ctx, take_expr) if take_expr is not None else None
                if keep_expr is None and take is not None:
                    keep = frozenset(1.0 - t for t in take)  # lerp: the average keeps 1 - weight
                if keep is None or take is None:
                    continue
                if min(take) >= ONLINE_SHARE and all(0.0 < k <= 1.0 - ONLINE_SHARE + 1e-9 for k in keep):
                    yield self.finding(
                        ctx,
                        anchor,
                        f"this update keeps {_fmt(keep)} of the average `{avg}` and takes {_fmt(take)} of the online"
                        f" `{online}` each step: the decay sits on the wrong term, so the copy just follows the"
                        " online weights",
                        observation=ctx.segment(anchor, 120),
                        next_test=f"after an update, print `({avg} - {online}).abs().max()`: it is about one step's change",
                    )


def _fmt(values: frozenset[float]) -> str:
    return "/".join(f"{v:g}" for v in sorted(values))


def _paired_targets(loop: ast.For) -> tuple[str, str] | None:
    """``for a, b in zip(x.parameters(), y.parameters())``: ("a", "b")."""
    it = loop.iter
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "zip" and len(it.args) == 2):
        return None
    if not all(isinstance(a, ast.Call) and call_method(a) in _PAIRED for a in it.args):
        return None
    target = loop.target
    if not (isinstance(target, ast.Tuple) and len(target.elts) == 2 and all(isinstance(e, ast.Name) for e in target.elts)):
        return None
    return target.elts[0].id, target.elts[1].id


def _root(expr: ast.AST) -> str | None:
    """The loop variable under ``x.data``, ``x.detach()``, ``x.data.float()``..."""
    while True:
        if isinstance(expr, ast.Name):
            return expr.id
        if isinstance(expr, ast.Attribute) and expr.attr in _PASSTHROUGH:
            expr = expr.value
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _PASSTHROUGH:
            expr = expr.func.value
        else:
            return None


def _terms(expr: ast.AST) -> list[ast.AST]:
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return _terms(expr.left) + _terms(expr.right)
    return [expr]


def _coefficient(expr: ast.AST, var: str) -> tuple[bool, ast.AST | None]:
    """(found, coefficient) of ``var`` in ``c * var`` / ``var * c`` / ``var`` (coefficient 1)."""
    for term in _terms(expr):
        if _root(term) == var:
            return True, ast.Constant(1.0)
        if isinstance(term, ast.BinOp) and isinstance(term.op, ast.Mult):
            if _root(term.left) == var:
                return True, term.right
            if _root(term.right) == var:
                return True, term.left
    return False, None


def _update(node: ast.AST, pair: tuple[str, str], loop: ast.For):
    """(average, online, kept share, online share, anchor) for an in-place EMA update of one of the pair."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        method = node.func.attr
        receiver = node.func.value
        if method == "lerp_" and node.args:
            avg = _root(receiver)
            if avg in pair and _root(node.args[0]) == _other(pair, avg):
                weight = node.args[1] if len(node.args) > 1 else keyword(node, "weight")
                return avg, _other(pair, avg), None, weight, node
        if method == "add_" and node.args:
            keep_expr = None
            if isinstance(receiver, ast.Call) and call_method(receiver) == "mul_" and receiver.args:
                keep_expr = receiver.args[0]
                avg = _root(receiver.func.value)
            else:
                avg = _root(receiver)
                keep_expr = _preceding_mul(loop, node, avg)
            if avg not in pair or keep_expr is None:
                return None
            online = _other(pair, avg)
            alpha = keyword(node, "alpha")
            if alpha is not None and _root(node.args[0]) == online:
                return avg, online, keep_expr, alpha, node
            found, coef = _coefficient(node.args[0], online)
            if found and alpha is None:
                return avg, online, keep_expr, coef, node
        if method == "copy_" and node.args:
            avg = _root(receiver)
            if avg in pair:
                return _combination(avg, _other(pair, avg), node.args[0], node)
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        if isinstance(target, ast.Attribute) and target.attr == "data" and _root(target) in pair:
            avg = _root(target)
            return _combination(avg, _other(pair, avg), node.value, node)
    return None


def _combination(avg: str, online: str, expr: ast.AST, anchor: ast.AST):
    has_avg, keep = _coefficient(expr, avg)
    has_online, take = _coefficient(expr, online)
    if not (has_avg and has_online) or len(_terms(expr)) != 2:
        return None
    return avg, online, keep, take, anchor


def _other(pair: tuple[str, str], name: str | None) -> str:
    return pair[1] if name == pair[0] else pair[0]


def _preceding_mul(loop: ast.For, add: ast.Call, avg: str | None) -> ast.AST | None:
    """``avg.mul_(d)`` as an earlier statement of the same loop body (``ema.mul_(d); ema.add_(p, alpha=1 - d)``)."""
    if avg is None:
        return None
    for stmt in loop.body:
        if stmt.lineno >= add.lineno:
            break
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and call_method(stmt.value) == "mul_":
            if _root(stmt.value.func.value) == avg and stmt.value.args:
                return stmt.value.args[0]
    return None

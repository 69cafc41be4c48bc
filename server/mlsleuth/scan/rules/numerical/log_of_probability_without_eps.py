"""The ``log-of-probability-without-eps`` rule: a hand-written focal / cross-entropy term takes `log(p)` of a probability with no clamp or epsilon."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import torch_idioms, value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method, constant
from mlsleuth.scan.registry import Rule, register_rule

_TORCH_LOGS = {"torch.log", "torch.special.log"}
_GUARDS = {"clamp", "clamp_", "clamp_min", "clamp_min_", "clip", "clip_", "maximum", "fmax", "nan_to_num"}
_GUARD_FUNCS = {"torch.clamp", "torch.clip", "torch.clamp_min", "torch.maximum", "torch.fmax", "torch.nan_to_num"}
_RANDOM = {"rand", "rand_like", "uniform_", "torch.rand", "torch.rand_like"}


def _log_operand(ctx: FileContext, call: ast.Call) -> ast.expr | None:
    """``p`` for ``torch.log(p)`` and ``p.log()`` (not numpy: that is statistics code, not a loss)."""
    qual = value_origins.normalize(ctx.qualname(call))
    if qual in _TORCH_LOGS and len(call.args) == 1 and not call.keywords:
        return call.args[0]
    if call_method(call) == "log" and not call.args and isinstance(call.func, ast.Attribute):
        receiver = call.func.value
        if qual is not None and qual.split(".")[0] in ctx.imports:
            return None  # np.log / math.log spelled as an attribute of a module
        return receiver
    return None


def _small_constant_name(node: ast.AST) -> bool:
    """``eps``, ``self.epsilon``, ``cfg.smooth``: a name for the small constant added to keep a value off 0."""
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return any(w.startswith(("eps", "smooth", "tiny")) for w in value_origins.words(name))


def _guarded(ctx: FileContext, expr: ast.AST, depth: int = 0) -> bool:
    """``expr`` (or a value it is computed from, through local names) is clamped, shifted by a
    constant or an epsilon, or a random draw: it cannot be an exact 0 worth reporting."""
    if depth > 4:
        return True  # too far to tell: assume guarded (stay silent)
    for node in ast.walk(expr):
        if isinstance(node, ast.Call):
            qual = value_origins.normalize(ctx.qualname(node)) or ""
            if qual in _GUARD_FUNCS or qual in _RANDOM or call_method(node) in _GUARDS | _RANDOM:
                return True
        if (
            isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)
            and any(isinstance(constant(side), (int, float)) or _small_constant_name(side) for side in (node.left, node.right))
        ):
            return True
        if isinstance(node, ast.Name):
            bound = value_origins.value(ctx, node)
            followed = bound is not None and bound is not node and not (isinstance(bound, ast.Name) and bound.id == node.id)
            if followed and _guarded(ctx, bound, depth + 1):
                return True
    return False


def _complement_used(ctx: FileContext, scope: ast.AST, operand: ast.AST) -> ast.BinOp | None:
    """``1 - p`` for the same ``p`` in the same function: the value is used as a probability."""
    cache = ctx.__dict__.setdefault("_complements", {})
    if scope not in cache:
        found: dict[str, ast.BinOp] = {}
        for node in ctx.walk_scope(scope):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and constant(node.left) in (1, 1.0):
                found.setdefault(ast.dump(node.right), node)
        cache[scope] = found
    return cache[scope].get(ast.dump(operand))


@register_rule
class LogOfProbabilityWithoutEps(Rule):
    """A hand-written focal or cross-entropy term takes `log(p)` of a probability with no clamp or epsilon.

    What it finds: `torch.log(p)` / `p.log()` where the same function also uses `1 - p` (a focal loss
    `-(1 - p_t) ** gamma * torch.log(p_t)`, a hand-written binary cross-entropy
    `y * torch.log(p) + (1 - y) * torch.log(1 - p)`), so `p` is a probability, and nothing keeps it away
    from 0: no `clamp`/`clip`, no `+ eps` on it or on the values it is computed from. Probabilities that
    come straight from a softmax/sigmoid are `log-of-softmax`'s; random draws (`torch.rand`), code
    under `torch.no_grad()` and test oracles (`def bce_loss_reference_fn`) are not flagged.
    Why it matters: a probability produced in float32 underflows to exactly 0 for a confidently wrong
    prediction (a softmax entry 104 below the maximum, a sigmoid of -104), and `log(0)` is `-inf`: the loss
    becomes inf and its gradient NaN, which the optimizer then writes into every weight. It happens on
    rare hard pixels or samples, often thousands of steps in.
    How to confirm: call the loss on a probability tensor holding an exact 0 for the target class
    (`torch.tensor([[0., 1.]])` with target 0) and backward it: the loss is inf and the input gradient NaN.
    What to do instead: take the log of a clamped value (`torch.log(p.clamp_min(1e-8))`), or better,
    hand the loss logits and compute `log_p = F.log_softmax(logits, dim)` (`F.logsigmoid` for binary),
    with `p = log_p.exp()` for the focal factor.
    """

    id = "log-of-probability-without-eps"
    category = "numerical"
    severity = "warning"
    reach = "file"
    triggers = ("log",)
    requires = (("1 -", "1.0 -", "1-"),)

    def check(self, ctx: FileContext):
        if not ctx.imports_any("torch"):
            return
        seen: set[int] = set()
        for call in ctx.calls_named("log"):
            operand = _log_operand(ctx, call)
            if operand is None or not isinstance(operand, (ast.Name, ast.Subscript, ast.Attribute)):
                continue
            scope = ctx.enclosing_function(call)
            if scope is None or id(scope) in seen:
                continue
            complement = _complement_used(ctx, scope, operand)
            if complement is None or torch_idioms.grad_off(ctx, call) or torch_idioms.reference_formula(ctx, call):
                continue
            if _guarded(ctx, operand):
                continue
            made = value_origins.origin(ctx, operand)
            if made is not None and made.kind in (value_origins.SOFTMAX, value_origins.SIGMOID):
                continue  # log-of-softmax reports it, with the fused fix
            seen.add(id(scope))
            name = ctx.segment(operand, 40)
            yield self.finding(
                ctx,
                call,
                f"log of the probability `{name}` with no clamp or epsilon: a probability of exactly 0 gives -inf "
                "and a NaN gradient",
                observation=f"{ctx.segment(call, 60)} at line {call.lineno}; `{ctx.segment(complement, 40)}` at line "
                f"{complement.lineno} uses `{name}` as a probability; nothing clamps it",
                next_test="Call the loss on probabilities holding an exact 0 for the target class and backward it: "
                "the loss is inf and the gradient NaN.",
                fix=f"torch.log({name}.clamp_min(1e-8)), or compute log-probabilities with log_softmax/logsigmoid from the logits",
            )

"""The ``loss-terms-reduced-differently`` rule: an element-mean loss term added to a term summed over everything."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant
from mlsleuth.scan.analysis.metric_units import loss_reduction
from mlsleuth.scan.registry import Rule, register_rule

_MAX_DEPTH = 6
MEAN, SUM = "mean", "sum"
# names and attributes that mark a sum over model weights (a regulariser), which has no batch axis
_WEIGHT_WORDS = frozenset({"parameters", "named_parameters", "weight", "bias", "weights", "state_dict", "params"})


@register_rule
class LossTermsReducedDifferently(Rule):
    """Loss terms added with mean and full-sum reductions.

    What it finds: two terms added into one objective where one is averaged over every element (an elementwise
    loss such as `F.mse_loss`, `nn.L1Loss()` or `F.binary_cross_entropy` with the default `reduction="mean"`, or
    `t.mean()` over a whole tensor) and the other is summed over every element (`torch.sum(t)`, `t.sum()`,
    `reduction="sum"`) of a batch tensor, with no weight or divisor on either: the classic VAE loss
    `F.mse_loss(recon, x) + -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())`. Terms followed through
    local names. Silent when either term is multiplied or divided by anything but a small literal (a `beta`, a
    divisor by the batch size or the number of elements), when the sum runs over model weights (a regulariser),
    and when the whole sum is rescaled.
    Why it matters: the summed term grows with the batch size and the number of elements while the averaged one
    does not, so the summed term outweighs the other by a factor of thousands: in a VAE the KL term dominates,
    the posterior collapses onto the prior and the decoder outputs the data mean. Nothing fails.
    How to confirm: print both terms at the first step: one is orders of magnitude larger; change the batch size
    and watch only the summed term scale with it.
    What to do instead: reduce both terms the same way (both `reduction="sum"` divided by the batch size, or both
    means), or weight one term explicitly (`recon * x[0].numel()`, `kl / x.size(0)`, a `beta`).
    """

    id = "loss-terms-reduced-differently"
    category = "loss"
    severity = "warning"
    reach = "project"
    triggers = ("sum",)
    requires = (("mean", "_loss", "Loss("),)

    def check(self, ctx: FileContext):
        for node in ctx.nodes_of(ast.BinOp):
            if not isinstance(node.op, (ast.Add, ast.Sub)) or _is_chain(ctx.parent(node)):  # type: ignore[attr-defined]
                continue
            if ctx.enclosing_function(node) is None:
                continue
            terms = _terms(node)  # type: ignore[arg-type]
            if _rescaled(ctx, node):
                continue
            kinds = [(_kind(ctx, t, 0), t) for t in terms]
            means = [(k, t) for k, t in kinds if k is not None and k[0] == MEAN]
            sums = [(k, t) for k, t in kinds if k is not None and k[0] == SUM]
            if not means or not sums:
                continue
            (_, mean_ctx, mean_src), mean_term = means[0]
            (_, sum_ctx, sum_src), sum_term = sums[0]
            at = sum_src if sum_ctx is ctx else sum_term
            yield self.finding(
                ctx,
                at,
                f"`{sum_ctx.segment(sum_src, 40)}` sums over every element while `{mean_ctx.segment(mean_src, 40)}` averages "
                "over every element, and the two are added unweighted: the summed term grows with the batch size and the "
                "number of elements, so it outweighs the other by that factor",
                observation=f"`{ctx.segment(node, 80)}` (line {node.lineno}) adds a full sum ({_where(ctx, sum_ctx, sum_src)}) "  # type: ignore[attr-defined]
                f"to an element mean ({_where(ctx, mean_ctx, mean_src)})",
            )


def _where(here: FileContext, there: FileContext, node: ast.AST) -> str:
    line = f"line {node.lineno}"  # type: ignore[attr-defined]
    return line if there is here or not there.display_path else f"{line} of {there.display_path}"


def _is_chain(node: ast.AST | None) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub))


def _terms(node: ast.BinOp) -> list[ast.AST]:
    """The operands of a chain of ``+``/``-``."""
    out: list[ast.AST] = []
    stack: list[ast.AST] = [node]
    while stack:
        item = stack.pop()
        if _is_chain(item):
            stack.extend((item.right, item.left))
        else:
            out.append(item)
    return out


def _rescaled(ctx: FileContext, node: ast.AST) -> bool:
    """The whole chain is multiplied or divided by something (``(recon + kl) / n``)."""
    parent = ctx.parent(node)
    return isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Mult, ast.Div, ast.FloorDiv))


def _kind(ctx: FileContext, expr: ast.AST, depth: int) -> tuple[str, FileContext, ast.AST] | None:
    """(MEAN or SUM, the file and the reducing expression) for an unweighted term; None when weighted or unknown."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        return _kind(ctx, expr.operand, depth + 1)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        for factor, other in ((expr.left, expr.right), (expr.right, expr.left)):
            value = constant(factor)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and 0.5 <= abs(value) <= 2:
                return _kind(ctx, other, depth + 1)  # a formula's constant (the KL's -0.5), not a weight
        return None
    if isinstance(expr, ast.Name):
        if vo.is_parameter(ctx, expr):
            return None
        bound = vo.local_value(ctx, expr)
        if bound is None or bound is expr or not _assigned_once(ctx, expr):
            return None
        return _kind(ctx, bound, depth + 1)
    if isinstance(expr, ast.Call):
        reduced = _reduced(ctx, expr)
        if reduced is not None:
            return reduced[0], ctx, reduced[1]
        return _helper_kind(ctx, expr, depth)
    return None


def _helper_kind(ctx: FileContext, call: ast.Call, depth: int) -> tuple[str, FileContext, ast.AST] | None:
    """What a project helper returns (``kl_divergence(mu, logvar)`` returning a full sum), when every ``return``
    agrees and no argument is a model weight."""
    if any(_weightlike(a) for a in list(call.args) + [k.value for k in call.keywords]):
        return None
    helper = vo.helper_definition(ctx, call)
    if helper is None:
        return None
    there, func = helper
    found = [_kind(there, r, depth + 1) for r in vo.returns(func)]
    if not found or not all(found) or len({f[0] for f in found}) != 1:  # type: ignore[index]
        return None
    return found[0]


def _weightlike(expr: ast.AST) -> bool:
    """``expr`` mentions model weights (``model.fc.weight``, ``self.w``, ``params``)."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Attribute) and (node.attr in _WEIGHT_WORDS or isinstance(node.value, ast.Name) and node.value.id == "self"):
            return True
        if isinstance(node, ast.Name) and set(vo.words(node.id)) & _WEIGHT_WORDS:
            return True
    return False


def _assigned_once(ctx: FileContext, name: ast.Name) -> bool:
    """``name`` is bound once in its function (no ``kl = kl / n`` or ``+=`` later rescaling it)."""
    scope = ctx.enclosing_function(name)
    if scope is None:
        return False
    if any(isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == name.id for n in ctx.walk_scope(scope)):
        return False
    return len(vo.bindings(ctx, scope).get(name.id, [])) == 1


def _reduced(ctx: FileContext, call: ast.Call) -> tuple[str, ast.AST] | None:
    qual = vo.normalize(ctx.qualname(call)) or ""
    method = call_method(call)
    if qual in vo.ELEMENTWISE_LOSS_FUNCTIONS or vo.elementwise_loss_call(ctx, call) is not None:
        how = loss_reduction(ctx, call)
        return (how, call) if how in (MEAN, SUM) else None
    if qual in ("torch.sum", "torch.mean") and len(call.args) == 1 and not call.keywords:
        reduced = call.args[0]
        how = qual.rsplit(".", 1)[-1]
    elif method in ("sum", "mean") and isinstance(call.func, ast.Attribute) and not call.args and not call.keywords \
            and not qual.startswith(("torch.", "numpy.")):
        reduced = call.func.value
        how = method
    else:
        return None
    if how == SUM and not _batch_expression(ctx, reduced):
        return None
    if how == MEAN and not _elementwise_expression(reduced):
        return None
    return how, call


def _elementwise_expression(expr: ast.AST) -> bool:
    """Arithmetic on tensors (``(x - y) ** 2``, ``(a - b).abs()``), not a list or a comparison."""
    if isinstance(expr, ast.BinOp):
        return True
    return isinstance(expr, ast.Call) and call_method(expr) in ("pow", "abs", "square", "exp", "log") and isinstance(expr.func, ast.Attribute)


def _batch_expression(ctx: FileContext, expr: ast.AST) -> bool:
    """Elementwise arithmetic whose names are all the function's parameters or values computed in it (model
    outputs), none of them model weights or loop variables."""
    if not _elementwise_expression(expr) or _weightlike(expr):
        return False
    names = [n for n in ast.walk(expr) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
             and n.id not in ("torch", "np", "numpy", "F")]
    if not names:
        return False
    for name in names:
        if vo.is_parameter(ctx, name):
            continue
        bound = vo.local_value(ctx, name)
        if bound is None or bound is name:
            return False
    return True

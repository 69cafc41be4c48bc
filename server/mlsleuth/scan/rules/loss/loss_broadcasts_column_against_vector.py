"""The ``loss-broadcasts-column-against-vector`` rule: an elementwise loss between (N, 1) and (N,) tensors."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method
from mlsleuth.scan.analysis.shape_arithmetic import BATCH, Shape
from mlsleuth.scan.analysis.single_output import one_output_layer
from mlsleuth.scan.analysis.tensor_shapes import shape_of
from mlsleuth.scan.registry import Rule, register_rule

_LOUD = ("binary_cross_entropy", "binary_cross_entropy_with_logits")
_LOSS_WORDS = (*(q.rsplit(".", 1)[-1] for q in vo.ELEMENTWISE_LOSS_CLASSES), *vo.ELEMENTWISE_LOSS_CLASSES.values())
_SQUARING = frozenset({"torch.abs", "torch.square", "torch.pow", "numpy.abs", "numpy.square"})
_REDUCING = frozenset({"torch.mean", "torch.sum", "numpy.mean", "numpy.sum"})


def _column(shape: Shape | None) -> bool:
    """``(N, ..., 1)``: a last axis of size one after a batch axis (two axes or more)."""
    return shape is not None and shape.last == 1 and shape.min_rank >= 2 and shape.head[:1] == (BATCH,)


def _vector(shape: Shape | None) -> bool:
    """Exactly one axis, of the batch's size or of a size the scan does not know (never a literal)."""
    return shape is not None and shape.rank == 1 and shape.head[0] in (BATCH, None)


def mismatch(ctx: FileContext, a: ast.AST | None, b: ast.AST | None) -> tuple[Shape, Shape] | None:
    """The shapes of ``a`` and ``b`` when one is a column ``(N, 1)`` and the other a vector ``(N,)``."""
    sa, sb = shape_of(ctx, a), shape_of(ctx, b)
    if sa is None or sb is None:
        return None
    if _column(sa) and _vector(sb) or _vector(sa) and _column(sb):
        return sa, sb
    return None


def _hand_written_loss(ctx: FileContext, sub: ast.BinOp) -> bool:
    """``((a - b) ** 2).mean()``, ``torch.abs(a - b).sum()``, ``(a - b).pow(2).mean()``: a difference squared (or
    made absolute) and then averaged or summed over every element."""
    node: ast.AST = sub
    parent = ctx.parent(node)
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Pow) and parent.left is node:
        node = parent
    elif isinstance(parent, ast.Call) and parent.args[:1] == [node] and vo.normalize(ctx.qualname(parent)) in _SQUARING:
        node = parent
    elif isinstance(parent, ast.Attribute) and parent.attr in ("pow", "abs", "square") \
            and isinstance(ctx.parent(parent), ast.Call):
        node = ctx.parent(parent)
    else:
        return False
    parent = ctx.parent(node)
    if isinstance(parent, ast.Call) and parent.args[:1] == [node] \
            and vo.normalize(ctx.qualname(parent)) in _REDUCING:
        return len(parent.args) == 1 and not parent.keywords
    if isinstance(parent, ast.Attribute) and parent.attr in ("mean", "sum"):
        call = ctx.parent(parent)
        return isinstance(call, ast.Call) and call.func is parent and not call.args and not call.keywords
    return False


@register_rule
class LossBroadcastsColumnAgainstVector(Rule):
    """An elementwise loss between an (N, 1) prediction and an (N,) target.

    What it finds: `MSELoss`, `L1Loss`, `SmoothL1Loss`, `HuberLoss`, `BCELoss`, `BCEWithLogitsLoss` (module or
    functional form), or a hand-written `((pred - y) ** 2).mean()` / `torch.abs(pred - y).sum()`, where the shape
    analysis shows one side is a column `(N, 1)` (the output of a one-unit `nn.Linear`, directly, through a
    `Sequential` or a model's `forward`, or an explicit `unsqueeze(1)` / `view(-1, 1)`) and the other a vector
    `(N,)` (a loader's target whose dataset yields one number per sample, a `TensorDataset` column, a
    `view(-1)`). Shapes come from `tensor_shapes`: loaders, datasets, layers and shape methods followed across
    names, modules and files; anything it cannot be sure of stays silent. The hand-written form needs the column to
    come from a one-unit layer (pairwise differences built with `unsqueeze` are left alone).
    Why it matters: broadcasting turns `(N, 1)` against `(N,)` into `(N, N)`: every prediction is compared with
    every target of the batch. The loss still decreases, towards predicting the batch mean for every sample, so the
    model trains and learns almost nothing about the inputs. torch prints a UserWarning for some of these losses
    (not for a hand-written one), easily lost in a log; the BCE losses raise a ValueError instead.
    How to confirm: `print(pred.shape, y.shape)` before the loss, or compare `loss` with
    `F.mse_loss(pred.squeeze(-1), y)`: they differ.
    What to do instead: make the shapes equal: `pred.squeeze(-1)` (or `pred.view(-1)`) against `y`, or `y.unsqueeze(1)`
    / `y.view(-1, 1)` / `y.view_as(pred)` against `pred`.
    """

    id = "loss-broadcasts-column-against-vector"
    category = "loss"
    severity = "warning"
    reach = "project"
    triggers = ("Loss", "_loss", "binary_cross_entropy", "mean", "sum")

    def check(self, ctx: FileContext):
        seen: set[int] = set()
        losses = ctx.calls() if any(word in ctx.source for word in _LOSS_WORDS) else []
        for call in losses:
            loss = vo.elementwise_loss_call(ctx, call)
            if loss is None or loss.input is None or loss.target is None:
                continue
            found = mismatch(ctx, loss.input, loss.target)
            if found is None:
                continue
            seen.add(call.lineno)
            yield self._finding(ctx, call, loss.name, found, loud=loss.name in _LOUD)
        for sub in ctx.nodes_of(ast.BinOp):
            if not isinstance(sub.op, ast.Sub) or sub.lineno in seen or not _hand_written_loss(ctx, sub):
                continue
            found = mismatch(ctx, sub.left, sub.right)
            if found is None:
                continue
            column_side = sub.left if _column(found[0]) else sub.right
            if one_output_layer(ctx, column_side) is None:
                continue
            yield self._finding(ctx, sub, "difference", found, loud=False)

    def _finding(self, ctx: FileContext, node: ast.AST, what: str, shapes: tuple, *, loud: bool):
        a, b = shapes
        effect = ("the loss raises a ValueError on the size mismatch" if loud else
                  "they broadcast to (N, N), so every prediction is compared with every target of the batch")
        name = "a hand-written squared/absolute difference" if what == "difference" else what
        return self.finding(
            ctx, node, f"{name} between shapes {a.text()} and {b.text()}: {effect}; squeeze the column "
                       f"(`.squeeze(-1)`) or unsqueeze the vector (`.unsqueeze(1)`) so both sides match",
            measurements={"loss": what, "input_shape": a.text(), "target_shape": b.text()})

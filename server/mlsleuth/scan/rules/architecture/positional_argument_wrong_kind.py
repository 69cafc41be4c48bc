"""The ``positional-argument-wrong-kind`` rule: a positional argument of a torch.nn layer or function lands in another parameter."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.torch_signatures import Param, positional
from mlsleuth.scan.registry import Rule, register_rule

_EPS_AT_LEAST = 0.05  # an epsilon this large is a momentum, a slope or a rate that slid one place
# Tensor parameters: any variable name fits them (`F.pad(value, ...)` pads an attention value).
_TENSOR_SLOTS = frozenset({"input", "target", "weight", "bias", "tensor", "x"})


def _literal(node: ast.expr) -> object:
    if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float)):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and isinstance(node.operand.value, (int, float)) and not isinstance(node.operand.value, bool):
        return -node.operand.value
    return None


def _identifier(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _names(identifier: str, param: str) -> bool:
    """Whether ``identifier`` names ``param``: the same word, or a prefixed form of it (``bn_momentum``)."""
    return identifier == param or (len(param) >= 3 and identifier.endswith("_" + param))


def _problem(slot: Param, arg: ast.expr, params: tuple[Param, ...]) -> tuple[str, str] | None:
    """``(what happened, the keyword the argument was meant for)``, or None when the argument fits its slot."""
    value = _literal(arg)
    if isinstance(value, bool):
        if slot.kind in ("f", "i") and slot.default is not None and float(value) != float(slot.default):
            return (f"`{value}` lands in `{slot.name}` (a number: {float(value):g} instead of the default {slot.default:g}), not in a flag", slot.name)
        return None
    if value is not None:
        if slot.kind == "b" and value not in (0, 1):
            return (f"`{value}` lands in the flag `{slot.name}` (any non-zero number counts as True)", slot.name)
        if slot.kind == "f" and (slot.name == "eps" or slot.name.endswith("_eps")) and abs(float(value)) >= _EPS_AT_LEAST:
            return (f"`{value}` lands in `{slot.name}`, the small constant added for numerical safety (default {slot.default:g})", slot.name)
        return None
    ident = _identifier(arg)
    if ident is None or slot.name in _TENSOR_SLOTS or slot.name in ident.split("_") or _names(ident, slot.name):
        return None
    for other in params:
        if other.name == slot.name or other.name in _TENSOR_SLOTS or not _names(ident, other.name):
            continue
        if slot.kind in ("i", "o") and other.kind in ("i", "o"):
            # sizes and geometry reuse one value on purpose: `Conv2d(out_channels, out_channels, 3)` (a block's second
            # conv), `MaxPool2d(stride)` (a window as wide as its stride); only numbers and flags are told apart by name
            return None
        return f"`{ident}` lands in `{slot.name}`, although its name says it is meant for `{other.name}`", other.name
    return None


@register_rule
class PositionalArgumentWrongKind(Rule):
    """A positional argument of a torch.nn layer or function lands in the wrong parameter.

    What it finds: a positional argument whose value or name does not fit the parameter it lands in, in the
    callee's own signature (`torch.nn` layers and `torch.nn.functional` functions, from a table generated from
    torch): a `True`/`False` in a numeric slot whose default it changes (`nn.LeakyReLU(True)` sets
    `negative_slope=1.0`; `nn.Dropout(True)` drops everything), a number other than 0/1 in a flag
    (`nn.ReLU(0.2)` sets `inplace`), an epsilon of 0.05 or more given by position (`nn.BatchNorm2d(64, 0.8)` sets
    `eps=0.8`, where a momentum was meant), and a variable named after another parameter of the same callee
    where a number or a flag is involved (`F.dropout(x, self.training)` sets `p`; `nn.BatchNorm1d(c, momentum)` sets
    `eps`); sizes and geometry (`MaxPool2d(stride)`) often reuse one value on purpose and are not compared by name.
    Why it matters: the call is valid, so nothing fails. The layer quietly computes something else: a LeakyReLU with
    slope 1 is the identity and the network collapses towards a linear map, a BatchNorm with eps 0.8 barely
    normalises, dropout with p=1 zeroes its input.
    How to confirm: `print(layer)` shows the configured values (`LeakyReLU(negative_slope=True)`,
    `BatchNorm2d(64, eps=0.8, ...)`); for a functional call, compare the positional order with the signature.
    What to do instead: pass the argument by keyword (`nn.LeakyReLU(0.2, inplace=True)`,
    `nn.BatchNorm2d(64, momentum=0.8)`, `F.dropout(x, p=0.5, training=self.training)`).
    """

    id = "positional-argument-wrong-kind"
    category = "architecture"
    severity = "warning"
    triggers = ("nn",)

    def check(self, ctx: FileContext):
        for call in ctx.calls():
            if not call.args:
                continue
            qualname = ctx.qualname(call.func)
            if not qualname or not qualname.startswith("torch.nn."):
                continue
            params = positional(qualname)
            if not params:
                continue
            for position, (arg, slot) in enumerate(zip(call.args, params)):
                if isinstance(arg, ast.Starred):
                    break  # positions after *args are unknown
                problem = _problem(slot, arg, params)
                if problem:
                    what, meant_for = problem
                    short = qualname.replace("torch.nn.functional.", "F.").replace("torch.nn.", "nn.")
                    yield self.finding(
                        ctx, arg, f"{short}: {what}",
                        fix=f"pass it by keyword, e.g. {short}(..., {meant_for}=...)",
                        measurements={"callee": qualname, "parameter": slot.name, "position": position})
                    break

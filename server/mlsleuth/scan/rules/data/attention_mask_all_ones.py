"""The ``attention-mask-all-ones`` rule: the attention mask of a padded batch is all ones, so the model attends to the padding."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method
from mlsleuth.scan.analysis.padding import padded_source
from mlsleuth.scan.registry import Rule, register_rule

_ONES_LIKE = frozenset({"torch.ones_like", "numpy.ones_like"})
_ONES = frozenset({"torch.ones", "numpy.ones"})
_BUFFERS = frozenset({"torch.full", "torch.zeros", "numpy.full", "numpy.zeros"})
_PASSTHROUGH = vo.PASSTHROUGH_METHODS | {"long", "int", "float", "bool", "to", "cuda", "cpu", "unsqueeze", "view", "reshape", "tolist"}
_MASK_KEYWORDS = frozenset({"attention_mask", "attn_mask", "mask", "input_mask", "src_mask", "key_padding_mask"})


def _shape_owner(ctx: FileContext, shape: ast.AST) -> ast.AST | None:
    """``x`` in ``x.shape``, ``x.size()``, ``(x.size(0), x.size(1))``, ``x.shape[:2]``."""
    if isinstance(shape, ast.Attribute) and shape.attr == "shape":
        return shape.value
    if isinstance(shape, ast.Call) and call_method(shape) == "size" and not shape.args and isinstance(shape.func, ast.Attribute):
        return shape.func.value
    if isinstance(shape, ast.Subscript) and isinstance(shape.slice, ast.Slice):
        return _shape_owner(ctx, shape.value)
    if isinstance(shape, (ast.Tuple, ast.List)) and shape.elts:
        owners = set()
        for elt in shape.elts:
            if isinstance(elt, ast.Call) and call_method(elt) == "size" and elt.args and isinstance(elt.func, ast.Attribute):
                owners.add(ast.dump(elt.func.value))
            elif isinstance(elt, ast.Subscript) and isinstance(elt.value, ast.Attribute) and elt.value.attr == "shape":
                owners.add(ast.dump(elt.value.value))
            elif isinstance(elt, ast.Name) and (unpacked := _unpacked_shape(ctx, elt)) is not None:
                owners.add(ast.dump(unpacked))
            else:
                return None
        if len(owners) == 1:
            first = shape.elts[0]
            if isinstance(first, ast.Name):
                return _unpacked_shape(ctx, first)
            return first.func.value if isinstance(first, ast.Call) else first.value.value  # type: ignore[union-attr]
    return None


def _unpacked_shape(ctx: FileContext, name: ast.Name) -> ast.AST | None:
    """``x`` when ``name`` was unpacked from its shape: ``batch, length = x.shape`` (or ``x.size()``)."""
    scope = ctx.enclosing_function(name) or ctx.tree
    entries = [e for e in vo.bindings(ctx, scope).get(name.id, []) if e[0] <= name.lineno]
    if not entries:
        return None
    stmt = entries[-1][1]
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple)):
        return None
    return _shape_owner(ctx, stmt.value)


def _shape_key(args: list[ast.expr]) -> str:
    """``torch.ones((b, n))`` and ``torch.full((b, n), pad)`` / ``torch.ones(b, n)``: the same shape, written alike."""
    if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
        args = list(args[0].elts)
    return "|".join(ast.dump(a) for a in args)


def _same_shape_buffer(ctx: FileContext, call: ast.Call) -> ast.AST | None:
    """A name of the same scope bound to a ``torch.full``/``torch.zeros`` buffer of exactly the shape ``call`` is built with."""
    key = _shape_key(list(call.args))
    scope = ctx.enclosing_function(call) or ctx.tree
    for entries in vo.bindings(ctx, scope).values():
        for _line, stmt, value in entries:
            if not (isinstance(value, ast.Call) and (vo.normalize(ctx.qualname(value)) or "") in _BUFFERS and value.args):
                continue
            shape = [value.args[0]] if (vo.normalize(ctx.qualname(value)) or "").endswith("full") else list(value.args)
            if _shape_key(shape) == key and isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
                return stmt.targets[0]
    return None


def _ones_over(ctx: FileContext, call: ast.Call) -> ast.AST | None:
    """The tensor whose shape an all-ones ``call`` copies: ``ones_like(x)``, ``torch.ones(x.shape)``, ``x.new_ones(x.size())``,
    ``torch.ones(b, n)`` beside ``x = torch.full((b, n), pad)``."""
    qual = vo.normalize(ctx.qualname(call)) or ""
    if qual in _ONES_LIKE and call.args:
        return call.args[0]
    if qual in _ONES and call.args:
        owner = _shape_owner(ctx, call.args[0]) if len(call.args) == 1 else _shape_owner(ctx, ast.Tuple(elts=call.args))
        return owner if owner is not None else _same_shape_buffer(ctx, call)
    if call_method(call) == "new_ones" and isinstance(call.func, ast.Attribute) and call.args:
        return _shape_owner(ctx, call.args[0]) if len(call.args) == 1 else _shape_owner(ctx, ast.Tuple(elts=call.args))
    return None


def _changed_later(ctx: FileContext, name: str, scope: ast.AST, after: int) -> bool:
    """Whether ``name`` is written in place, updated or rebound (other than by a type/device copy) after line ``after``."""
    for node in ctx.walk_scope(scope):
        line = getattr(node, "lineno", 0)
        if line <= after:
            continue
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if vo.root_name(target) != name:
                    continue
                if isinstance(target, ast.Name) and isinstance(node, ast.Assign) and _passthrough_of(node.value, name):
                    continue
                return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and vo.root_name(node.func.value) == name:
            method = node.func.attr
            if method.endswith("_") and not method.startswith("_"):
                return True
    return False


def _passthrough_of(value: ast.AST, name: str) -> bool:
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _PASSTHROUGH:
        value = value.func.value
    return isinstance(value, ast.Name) and value.id == name


def _used_as_mask(ctx: FileContext, call: ast.Call) -> tuple[str, ast.AST | None] | None:
    """How the ones tensor is used as a mask: (its name or the keyword, the scope), or None when it is not a mask."""
    parent = ctx.parent(call)
    while isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and parent.func.attr in _PASSTHROUGH:
        parent = ctx.parent(parent)
    if isinstance(parent, ast.keyword) and parent.arg in _MASK_KEYWORDS:
        return parent.arg, None
    if isinstance(parent, ast.Dict):
        for key, val in zip(parent.keys, parent.values):
            if val is not None and any(n is call for n in ast.walk(val)) and isinstance(key, ast.Constant) and "mask" in str(key.value):
                return str(key.value), None
        return None
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        name = parent.targets[0].id
        if "mask" in name.lower():
            return name, ctx.enclosing_function(call) or ctx.tree
    return None


@register_rule
class AttentionMaskAllOnes(Rule):
    """The attention mask of a padded batch is all ones, so the model attends to the padding.

    What it finds: an attention mask made with the shape of a token tensor (`torch.ones_like(input_ids)`,
    `torch.ones(ids.shape)`, `ids.new_ones(ids.size())`, `np.ones_like`) where that token tensor was padded
    (a `torch.full(..., pad_id)` buffer partly overwritten with the real tokens, `pad_sequence`, lists
    extended with `[pad] * n`, a tokenizer called with `padding=...`; followed through helpers, callers and
    other modules), and the mask is never changed afterwards (`mask[i, n:] = 0`, `masked_fill_`, `mask *= ...`)
    before it is returned or passed on as `attention_mask=` (or another mask keyword / dict entry).
    Why it matters: every padded position takes part in self-attention; a sentence's representation (the
    pooled [CLS] output) then depends on how long the other sentences of its batch were, accuracy drops and
    evaluation results change with the batch size.
    How to confirm: run one example alone and the same example in a batch with a much longer one: the
    outputs differ, and the attention weights on the [PAD] positions are not zero.
    What to do instead: build the mask from the padding, `attention_mask = (input_ids != pad_id).long()`, or
    zero the padded tail of each row (`attention_mask[i, len(seq):] = 0`), or let the tokenizer pad and return
    its own `attention_mask`.
    """

    id = "attention-mask-all-ones"
    category = "data"
    severity = "error"
    triggers = ("ones_like", "ones(", "new_ones")
    requires = (("mask",),)
    reach = "project"

    def check(self, ctx: FileContext):
        for call in ctx.calls_named("ones_like", "ones", "new_ones"):
            over = _ones_over(ctx, call)
            if over is None:
                continue
            use = _used_as_mask(ctx, call)
            if use is None:
                continue
            name, scope = use
            if scope is not None and _changed_later(ctx, name, scope, call.lineno):
                continue
            padded = padded_source(ctx, over)
            if padded is None:
                continue
            yield self.finding(
                ctx,
                call,
                f"`{name}` is all ones over `{ctx.segment(over, 40)}`, which is padded: the model attends to the padding",
                observation=f"{ctx.segment(call, 80)}; padded by {padded.describe()}",
            )

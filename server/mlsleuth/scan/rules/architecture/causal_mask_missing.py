"""The ``causal-mask-missing`` rule: a next-token model whose self-attention runs without a causal mask."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, constant
from mlsleuth.scan.registry import Rule, register_rule

# attention stacks: how many positional arguments reach the (self-attention) mask, and its keywords
_STACKS = {
    "TransformerEncoder": (2, {"mask", "is_causal"}),
    "TransformerEncoderLayer": (2, {"src_mask", "is_causal"}),
    "TransformerDecoder": (3, {"tgt_mask", "tgt_is_causal"}),
    "TransformerDecoderLayer": (3, {"tgt_mask", "tgt_is_causal"}),
    "Transformer": (4, {"tgt_mask", "tgt_is_causal"}),
    "MultiheadAttention": (6, {"attn_mask", "is_causal"}),
}
_SAMPLERS = {"argmax", "multinomial", "topk", "sample", "categorical"}


def _masked(call: ast.Call, positional: int, keywords: set[str]) -> bool:
    if len(call.args) >= positional or any(isinstance(a, ast.Starred) for a in call.args):
        return True
    for kw in call.keywords:
        if kw.arg is None:
            return True  # **kwargs: cannot tell
        if kw.arg in keywords and not (isinstance(kw.value, ast.Constant) and kw.value.value in (None, False)):
            return True
    return False


def _stack_kind(ctx: FileContext, cls: ast.ClassDef, func: ast.AST) -> str | None:
    """The torch.nn attention class ``self.<attr>`` (or ``self.<attr>[i]``) was built from."""
    while isinstance(func, ast.Subscript):
        func = func.value
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"):
        return None
    for built in ctx.self_attributes(cls).get(func.attr, []):
        qn = value_origins.normalize(ctx.qualname(built)) if isinstance(built, ast.Call) else None
        if qn and qn.startswith("torch.nn.") and qn.rsplit(".", 1)[-1] in _STACKS:
            return qn.rsplit(".", 1)[-1]
    return None


def unmasked_attention(ctx: FileContext, cls: ast.ClassDef) -> list[tuple[ast.Call, str]]:
    """Self-attention calls in ``cls``'s forward with no attention mask and no ``is_causal``."""
    forward = ctx.method(cls, "forward")
    if forward is None:
        return []
    found = []
    for call in ctx.calls(forward):
        qn = ctx.qualname(call) or ""
        if qn.endswith("scaled_dot_product_attention"):
            if not _masked(call, 4, {"attn_mask", "is_causal"}):
                found.append((call, "scaled_dot_product_attention"))
            continue
        kind = _stack_kind(ctx, cls, call.func)
        if kind is None:
            continue
        if kind == "MultiheadAttention" and not (
            len(call.args) >= 3 and ctx.segment(call.args[0]) == ctx.segment(call.args[1]) == ctx.segment(call.args[2])
        ):
            continue  # cross-attention needs no causal mask
        positional, keywords = _STACKS[kind]
        if not _masked(call, positional, keywords):
            found.append((call, f"nn.{kind}"))
    return found


def _generates_from_itself(ctx: FileContext, cls: ast.ClassDef) -> bool:
    """A method of ``cls`` loops: run the model on the sequence so far, pick a token, append it."""
    for method in (n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        for loop in (n for n in ctx.walk_scope(method) if isinstance(n, (ast.For, ast.While))):
            calls = ctx.calls(loop)
            runs_self = any(
                isinstance(c.func, ast.Name) and c.func.id == "self"
                or isinstance(c.func, ast.Attribute) and c.func.attr == "forward" and isinstance(c.func.value, ast.Name) and c.func.value.id == "self"
                for c in calls
            )
            appends = any((ctx.qualname(c) or "").endswith((".cat", ".concat", ".concatenate")) for c in calls)
            samples = any(isinstance(c.func, ast.Attribute) and c.func.attr in _SAMPLERS or (ctx.qualname(c) or "").rsplit(".", 1)[-1] in _SAMPLERS for c in calls)
            if runs_self and appends and samples:
                return True
    return False


def _shifted(expr: ast.AST, upper: int | None, lower: int | None) -> str | None:
    """The sequence name when ``expr`` is ``seq[:, :-1]`` (upper=-1) or ``seq[:, 1:]`` (lower=1), on the last axis."""
    if not isinstance(expr, ast.Subscript) or not isinstance(expr.value, ast.Name):
        return None
    index = expr.slice.elts[-1] if isinstance(expr.slice, ast.Tuple) and expr.slice.elts else expr.slice
    if not isinstance(index, ast.Slice) or index.step is not None:
        return None
    if upper is not None and (index.lower is None and constant(index.upper) == upper):
        return expr.value.id
    if lower is not None and (index.upper is None and constant(index.lower) == lower):
        return expr.value.id
    return None


def _teacher_forced_calls(ctx: FileContext):
    """(model call, model receiver) where the model gets ``seq[:, :-1]`` and ``seq[:, 1:]`` is used in the same function."""
    for func in ctx.functions:
        targets = {
            name for node in ctx.walk_scope(func) if isinstance(node, ast.Subscript)
            for name in [_shifted(node, None, 1)] if name
        }
        if not targets:
            continue
        for call in ctx.calls(func):
            if call.args and isinstance(call.func, (ast.Name, ast.Attribute)):
                name = _shifted(call.args[0], -1, None)
                if name and name in targets:
                    yield call, call.func


@register_rule
class CausalMaskMissing(Rule):
    """A next-token model whose self-attention runs without a causal mask.

    What it finds: a model trained to predict the next token (it generates by feeding its own
    predictions back, or the training code gives it `seq[:, :-1]` and scores `seq[:, 1:]`) whose
    `forward` calls an attention stack without a causal mask: `nn.TransformerEncoder` /
    `TransformerEncoderLayer` with no `mask`/`is_causal`, `nn.TransformerDecoder` / `nn.Transformer`
    with no `tgt_mask`/`tgt_is_causal`, self-attention `nn.MultiheadAttention(x, x, x)` with no
    `attn_mask`/`is_causal`, or `F.scaled_dot_product_attention` with neither. A padding mask alone
    does not count. Encoders of classifiers, masked language models and cross-attention are left alone.
    Why it matters: torch's transformer layers attend in both directions unless told otherwise. Each
    position then sees the token it is asked to predict, so the training loss falls towards zero by
    copying, while generation, which has no future to look at, produces nonsense. Nothing fails.
    How to confirm: run `mlsleuth diagnose` (its `causal-leakage` check), or by hand: change the last
    input token and see whether the logits at earlier positions change (they must not).
    What to do instead: pass a causal mask (`nn.Transformer.generate_square_subsequent_mask(T)`, or
    `torch.triu(torch.ones(T, T, dtype=torch.bool), 1)`) together with `is_causal=True`, or call
    `scaled_dot_product_attention(..., is_causal=True)`.
    """

    id = "causal-mask-missing"
    category = "architecture"
    severity = "error"
    # a model file names its attention; a training file in another module shows the shift (`[:, :-1]`, `[:, 1:]`)
    triggers = ("Transformer", "MultiheadAttention", "scaled_dot_product_attention", ":-1]")
    requires = (("Transformer", "MultiheadAttention", "scaled_dot_product_attention", "1:]"),)
    reach = "project"

    def check(self, ctx: FileContext):
        reported: set[tuple[str, int]] = set()
        candidates: list[tuple[FileContext, ast.ClassDef, str]] = []
        for cls in ctx.classes:
            if _generates_from_itself(ctx, cls):
                candidates.append((ctx, cls, "its own generation loop feeds each prediction back as input"))
        for call, receiver in _teacher_forced_calls(ctx):
            found = value_origins.instance_class(ctx, receiver) if isinstance(receiver, ast.Name) else None
            if found is None and isinstance(receiver, ast.Name):
                local = next((c for c in ctx.classes if c.name == receiver.id), None)
                found = (ctx, local) if local is not None else None
            if found is not None:
                candidates.append((found[0], found[1], f"`{ctx.segment(call, 60)}` trains it on the sequence shifted by one"))
        for fctx, cls, why in candidates:
            for attention, kind in unmasked_attention(fctx, cls):
                key = (fctx.display_path, attention.lineno)
                if key in reported:
                    continue
                reported.add(key)
                yield self.finding(
                    fctx,
                    attention,
                    f"{cls.name} predicts the next token ({why}), but `{fctx.segment(attention, 60)}` runs {kind}"
                    " without a causal mask: every position attends to the tokens it is asked to predict",
                    next_test="change the last input token and compare the logits at earlier positions: with a causal mask"
                    " they stay the same, here they change (or run `mlsleuth diagnose` for `causal-leakage`)",
                )

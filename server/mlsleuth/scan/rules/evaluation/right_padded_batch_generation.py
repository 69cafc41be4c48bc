"""The ``right-padded-batch-generation`` rule: a decoder-only model generates from a right-padded batch."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext, argument, constant, dotted, keyword
from mlsleuth.scan.analysis.hf_models import decoder_only_origin, every_caller_agrees
from mlsleuth.scan.analysis.value_origins import value
from mlsleuth.scan.registry import Rule, register_rule

_BATCH_PADDING = (True, "longest", "max_length")


def _padded_encoding(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> ast.Call | None:
    """The tokenizer call ``tok(texts, padding=True, ...)`` that produced ``expr`` (an encoding or its input ids)."""
    if expr is None or depth > 5:
        return None
    if isinstance(expr, ast.Subscript) and constant(expr.slice) == "input_ids":
        return _padded_encoding(ctx, expr.value, depth + 1)
    if isinstance(expr, ast.Attribute) and expr.attr == "input_ids":
        return _padded_encoding(ctx, expr.value, depth + 1)
    bound = value(ctx, expr)
    if isinstance(bound, ast.Name) and bound is expr:
        return every_caller_agrees(ctx, bound, _padded_encoding, depth)
    if bound is not expr and isinstance(bound, (ast.Subscript, ast.Attribute)):
        return _padded_encoding(ctx, bound, depth + 1)
    if not isinstance(bound, ast.Call):
        return None
    if isinstance(bound.func, ast.Attribute) and bound.func.attr in ("to", "cuda"):
        return _padded_encoding(ctx, bound.func.value, depth + 1)
    is_tokenizer_call = isinstance(bound.func, ast.Name) or (
        isinstance(bound.func, ast.Attribute) and bound.func.attr in ("batch_encode_plus", "__call__")
    ) or (isinstance(bound.func, ast.Attribute) and "token" in bound.func.attr.lower())
    padding = constant(keyword(bound, "padding"))
    if not is_tokenizer_call or padding not in _BATCH_PADDING:
        return None
    # padding=True pads only a batch of texts; "max_length" pads a single prompt too
    if padding != "max_length" and not _several_texts(ctx, bound.args[0] if bound.args else keyword(bound, "text")):
        return None
    if keyword(bound, "padding_side") is not None:
        return None
    return bound


def _several_texts(ctx: FileContext, expr: ast.AST | None) -> bool:
    """Whether the texts handed to the tokenizer are a batch: a list, or a name that says so (``prompts``)."""
    if expr is None:
        return False
    bound = value(ctx, expr)
    if isinstance(bound, (ast.List, ast.ListComp, ast.Tuple)):
        return True
    if isinstance(bound, (ast.Constant, ast.JoinedStr, ast.BinOp)):
        return False
    if isinstance(expr, ast.Subscript):
        owner = dotted(expr.value) or ""
        return "batch" in owner.lower()
    name = (dotted(expr) or "").rsplit(".", 1)[-1].lower()
    return "batch" in name or "list" in name or (name.endswith("s") and not name.endswith("ss"))


def _tokenizer_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in ("batch_encode_plus", "__call__"):
        func = func.value
    return dotted(func)


def _right_padded(ctx: FileContext, tokenizer: str) -> ast.AST | None:
    """The statement that makes ``tokenizer`` pad on the right, when every setting of its side says right."""
    right = None
    for node in ctx.nodes_of(ast.Assign):
        for target in node.targets:
            if isinstance(target, ast.Attribute) and target.attr == "padding_side":
                owner = dotted(target.value)
                if owner is None or owner.rsplit(".", 1)[-1] == tokenizer.rsplit(".", 1)[-1]:
                    if constant(node.value) != "right":
                        return None
                    if owner == tokenizer:
                        right = node
    for call in ctx.calls_named("from_pretrained"):
        side = keyword(call, "padding_side")
        if side is None:
            continue
        if constant(side) != "right":
            return None
        stmt = ctx.parent(call)
        if isinstance(stmt, ast.Assign) and any(dotted(t) == tokenizer for t in stmt.targets):
            right = right or stmt
    return right


@register_rule
class RightPaddedBatchGeneration(Rule):
    """A decoder-only model generates from a right-padded batch

    What it finds: `model.generate(**enc)` (or `input_ids=enc["input_ids"]`) on a decoder-only model
    (`AutoModelForCausalLM`, `*ForCausalLM`, `GPT2LMHeadModel`, a PEFT model wrapping one) where `enc` is a
    batch the tokenizer padded (`tok(prompts, padding=True, return_tensors="pt")`, `padding="max_length"`),
    and the same tokenizer was set to pad on the right (`tok.padding_side = "right"`, or
    `from_pretrained(..., padding_side="right")`) with no other side set anywhere in the file. The model and
    the encoding may come through `.to(device)`, `get_peft_model`, `accelerator.unwrap_model`, or a helper
    parameter every caller fills.
    Why it matters: a decoder-only model continues from the last position of each row. With right padding
    the shorter prompts end in pad tokens, so their continuations are generated after padding (and with a
    pad-as-EOS tokenizer often stop at once or are garbled). Evaluation scores computed from these batched
    generations are lower than the model's real quality and change with the batch composition; training
    scripts set right padding for the loss and then reuse the tokenizer for evaluation generation.
    How to confirm: generate one short prompt alone and inside a batch with a much longer prompt: the two
    outputs differ (transformers also logs that right-padding was detected).
    What to do instead: set `tokenizer.padding_side = "left"` before encoding prompts for generation
    (and back to right for training), or pass `padding_side="left"` to the tokenizer call.
    """

    id = "right-padded-batch-generation"
    category = "evaluation"
    severity = "warning"
    triggers = ("generate",)
    requires = (("padding_side",), ("CausalLM", "LMHeadModel"))

    def check(self, ctx: FileContext):
        for call in ctx.calls():
            if not (isinstance(call.func, ast.Attribute) and call.func.attr == "generate"):
                continue
            source = argument(call, 0, "input_ids")
            if source is None:
                source = next((kw.value for kw in call.keywords if kw.arg is None), None)
            encoding = _padded_encoding(ctx, source)
            if encoding is None:
                continue
            tokenizer = _tokenizer_name(encoding)
            if tokenizer is None:
                continue
            side = _right_padded(ctx, tokenizer)
            model = decoder_only_origin(ctx, call.func.value) if side is not None else None
            if model is None:
                continue
            yield self.finding(
                ctx,
                call,
                f"`{tokenizer}` pads on the right (line {side.lineno}) and this batch was padded"
                f" (line {encoding.lineno}): the decoder-only model (line {model.lineno}) continues each short"
                " prompt after its pad tokens, so the batched generations are wrong",
                observation=ctx.segment(call, 120),
                next_test="generate a short prompt alone and batched with a long one: the outputs differ",
            )

"""The ``generate-on-right-padded-batch`` rule: a decoder-only model's `generate()` gets a batch padded on the right."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted, keyword
from mlsleuth.scan.registry import Rule, register_rule

MAX_DEPTH = 6
# methods that return the same model / tokenizer output (device moves, modes, dtype casts)
_SAME_OBJECT = frozenset({"to", "cuda", "cpu", "eval", "half", "bfloat16", "float", "requires_grad_", "train"})
_DECODER_ONLY = ("ForCausalLM", "LMHeadModel")
_ENCODER_DECODER = ("Seq2Seq", "EncoderDecoder", "T5", "Bart", "Pegasus", "MarianMT", "Whisper", "Vision2Seq")
_PADDING_ON = (True, "longest", "max_length")
_MODEL_WRAPPERS = frozenset({"get_peft_model", "PeftModel.from_pretrained"})


def _strip(expr: ast.AST) -> ast.AST:
    """``x.to(device)``, ``x.eval()``, ``enc["input_ids"]``, ``enc.input_ids`` -> ``x`` / ``enc``."""
    while True:
        if isinstance(expr, ast.Call) and call_method(expr) in _SAME_OBJECT:
            expr = expr.func.value  # type: ignore[union-attr]
        elif isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) and expr.slice.value == "input_ids":
            expr = expr.value
        elif isinstance(expr, ast.Attribute) and expr.attr == "input_ids":
            expr = expr.value
        else:
            return expr


def _passed_values(ctx: FileContext, name: ast.Name) -> list[tuple[FileContext, ast.AST]]:
    """What the callers pass for the parameter ``name`` of its enclosing function."""
    func = ctx.enclosing_function(name)
    if func is None:
        return []
    found = []
    for sctx, call in vo.all_call_sites(ctx, func):
        passed = vo.argument_for(call, func, name.id)
        if passed is not None:
            found.append((sctx, passed))
    return found


def _origins(ctx: FileContext, expr: ast.AST, depth: int = 0) -> list[tuple[FileContext, ast.AST]]:
    """The calls that built ``expr``: followed through locals, device moves, parameters (to every caller)."""
    if depth > MAX_DEPTH:
        return []
    expr = _strip(expr)
    if isinstance(expr, ast.Name) and vo.is_parameter(ctx, expr):
        return [hit for sctx, passed in _passed_values(ctx, expr) for hit in _origins(sctx, passed, depth + 1)]
    bound = vo.value(ctx, expr)
    if bound is None or bound is expr:
        return [(ctx, expr)] if isinstance(expr, ast.Call) else []
    return _origins(ctx, bound, depth + 1)


def _callee_text(ctx: FileContext, call: ast.Call) -> str:
    return (vo.normalize(ctx.qualname(call.func)) or dotted(call.func) or "") if isinstance(call.func, (ast.Name, ast.Attribute)) else ""


def _is_decoder_only(ctx: FileContext, call: ast.AST, depth: int = 0) -> bool | None:
    """True for a causal LM (``AutoModelForCausalLM.from_pretrained``, ``GPT2LMHeadModel(...)``), False for an
    encoder-decoder, None when unknown."""
    if depth > MAX_DEPTH or not isinstance(call, ast.Call):
        return None
    text = _callee_text(ctx, call)
    if any(k in text for k in _ENCODER_DECODER):
        return False
    if any(k in text for k in _DECODER_ONLY):
        return True
    if text.rsplit(".", 1)[-1] in {"get_peft_model"} or text.endswith("PeftModel.from_pretrained"):
        inner = call.args[0] if call.args else None
        return _model_kind(ctx, inner, depth + 1) if inner is not None else None
    helper = vo.helper_definition(ctx, call)
    if helper is None:
        return None
    hctx, hfunc = helper
    kinds = {_model_kind(hctx, r, depth + 1) for r in vo.returns(hfunc)}
    return kinds.pop() if len(kinds) == 1 else None


def _model_kind(ctx: FileContext, expr: ast.AST, depth: int = 0) -> bool | None:
    kinds = {_is_decoder_only(c, o, depth + 1) for c, o in _origins(ctx, expr, depth + 1)}
    return kinds.pop() if len(kinds) == 1 else None


def _side_value(ctx: FileContext, expr: ast.AST | None, func: ast.AST | None, call: ast.Call | None) -> str | None:
    """``"right"`` / ``"left"`` for a constant, or for a parameter of ``func`` (the argument ``call`` passes, else its default)."""
    if isinstance(expr, ast.Constant) and expr.value in ("right", "left"):
        return expr.value
    if isinstance(expr, ast.Name) and func is not None and expr.id in vo.function_params(func):
        passed = vo.argument_for(call, func, expr.id) if call is not None else None
        if passed is None:
            passed = vo.parameter_default(func, expr.id)
        if isinstance(passed, ast.Constant) and passed.value in ("right", "left"):
            return passed.value
    return None


def _side_set_on(ctx: FileContext, scope: ast.AST, name: str, func: ast.AST | None, call: ast.Call | None) -> list[str | None]:
    """Values of ``name.padding_side = ...`` statements in ``scope`` (None where not decidable)."""
    sides = []
    for node in ctx.walk_scope(scope):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and target.attr == "padding_side" and dotted(target.value) == name:
                    sides.append(_side_value(ctx, node.value, func, call))
    return sides


def _tokenizer_side(ctx: FileContext, built: ast.Call, depth: int = 0) -> str | None:
    """The padding side of the tokenizer that the call ``built`` returns: set by keyword, by a
    ``tok.padding_side = ...`` statement inside the helper that builds it, or GPT-2's fixed default."""
    if depth > MAX_DEPTH:
        return None
    side = _side_value(ctx, keyword(built, "padding_side"), None, None)
    if keyword(built, "padding_side") is not None:
        return side
    text = _callee_text(ctx, built)
    if text.endswith("from_pretrained"):
        owner = text.rsplit(".", 1)[0].rsplit(".", 1)[-1]
        return "right" if owner in ("GPT2Tokenizer", "GPT2TokenizerFast") else None
    helper = vo.helper_definition(ctx, built)
    if helper is None:
        return None
    hctx, hfunc = helper
    sides = set()
    for returned in vo.returns(hfunc):
        if not isinstance(returned, ast.Name):
            return None
        set_here = _side_set_on(hctx, hfunc, returned.id, hfunc, built)
        if set_here:
            sides.add(set_here[-1])
            continue
        inner = vo.value(hctx, returned)
        if not isinstance(inner, ast.Call):
            return None
        kw = keyword(inner, "padding_side")
        sides.add(_side_value(hctx, kw, hfunc, built) if kw is not None else _tokenizer_side(hctx, inner, depth + 1))
    return sides.pop() if len(sides) == 1 else None


def _padded_encoding(ctx: FileContext, generate: ast.Call) -> tuple[FileContext, ast.Call] | None:
    """(file, tokenizer call) when the ids handed to ``generate`` come from ``tok(texts, padding=True)``."""
    source = keyword(generate, "input_ids")
    if source is None:
        source = next((kw.value for kw in generate.keywords if kw.arg is None), None)
    if source is None and generate.args:
        source = generate.args[0]
    if source is None:
        return None
    found = _origins(ctx, source)
    if len(found) != 1:
        return None
    ectx, enc = found[0]
    if not isinstance(enc, ast.Call) or not isinstance(enc.func, (ast.Name, ast.Attribute)):
        return None
    if isinstance(enc.func, ast.Attribute) and enc.func.attr not in ("__call__", "batch_encode_plus", "apply_chat_template"):
        return None
    padding = keyword(enc, "padding")
    if not isinstance(padding, ast.Constant) or padding.value not in _PADDING_ON:
        return None
    side = keyword(enc, "padding_side")
    if side is not None:
        return None  # the call chooses its own padding side (transformers >= 4.45)
    text = enc.args[0] if enc.args else keyword(enc, "text")
    if isinstance(text, ast.Name):
        text = vo.local_value(ectx, text) or text
    if _one_prompt(text):
        return None  # one prompt (a literal, an f-string, a formatted string): nothing to pad
    return ectx, enc


def _one_prompt(text: ast.AST | None) -> bool:
    """A single string: a literal, an f-string, or a string built with ``+``/``%`` from one."""
    def is_str(node: ast.AST) -> bool:
        return isinstance(node, ast.JoinedStr) or isinstance(node, ast.Constant) and isinstance(node.value, str)
    if text is None:
        return False
    if is_str(text):
        return True
    return isinstance(text, ast.BinOp) and isinstance(text.op, (ast.Add, ast.Mod)) and (is_str(text.left) or is_str(text.right))


def _tokenizer_expr(enc: ast.Call) -> ast.AST:
    return enc.func.value if isinstance(enc.func, ast.Attribute) else enc.func  # type: ignore[union-attr]


def _right_padded_at(ctx: FileContext, tok: ast.AST, use: ast.AST) -> list[tuple[FileContext, ast.AST, str]]:
    """Where the tokenizer ``tok`` (used at ``use``) is decided to pad on the right: (file, node, how)."""
    name = dotted(tok)
    func = ctx.enclosing_function(use)
    if name is not None and func is not None:
        set_here = _side_set_on(ctx, func, name, func, None)
        if set_here:
            return []  # the evaluation function chooses its padding side itself; trust it
    tok = _strip(tok)
    if isinstance(tok, ast.Name) and vo.is_parameter(ctx, tok):
        hits = []
        for sctx, passed in _passed_values(ctx, tok):
            hits.extend(_right_padded_at(sctx, passed, passed))
        return hits
    bound = vo.value(ctx, tok)
    if isinstance(bound, ast.Call):
        scope = ctx.enclosing_function(bound) or ctx.tree
        if name is not None:
            later = _side_set_on(ctx, scope, name, None, None)
            if later:
                return [(ctx, bound, "its padding_side is set to 'right'")] if later[-1] == "right" else []
        side = _tokenizer_side(ctx, bound)
        return [(ctx, bound, "it pads on the right")] if side == "right" else []
    return []


@register_rule
class GenerateOnRightPaddedBatch(Rule):
    """A decoder-only model's `generate()` is given a batch of prompts padded on the right.

    What it finds: `model.generate(**enc)` (or `input_ids=enc["input_ids"]`) where the model is a causal LM
    (`AutoModelForCausalLM`, `*ForCausalLM`, `*LMHeadModel`, also behind PEFT) and `enc` comes from the
    tokenizer called on several prompts with `padding=True`/`"longest"`/`"max_length"`, while that tokenizer
    pads on the right: `padding_side="right"` set on it or passed to `from_pretrained`, chosen by a shared
    helper's default (`load_tokenizer(path, padding_side="right")`), or a GPT-2 tokenizer left at its default.
    Model, tokenizer and encoding are followed through locals, device moves, helper functions and parameters
    across the project's files. Silent for encoder-decoder models, single-prompt calls, tokenizers whose padding
    side is unknown, and functions that set `padding_side` themselves before generating.
    Why it matters: a decoder-only model continues from the last position of each row. With right padding,
    every prompt shorter than the longest in its batch is followed by pad tokens, so the model generates after
    a run of pads: completions are degraded, and the score depends on the batch size and on which prompts
    share a batch. Nothing errors (transformers only logs a warning).
    How to confirm: generate the same prompt alone and inside a batch with a longer prompt: the completions
    differ; print `tokenizer.padding_side` just before `generate`.
    What to do instead: set `tokenizer.padding_side = "left"` for generation (keep right padding for
    training if you like), or generate one prompt at a time.
    """

    id = "generate-on-right-padded-batch"
    category = "evaluation"
    severity = "warning"
    triggers = ("generate",)
    reach = "project"

    def check(self, ctx: FileContext):
        seen = set()
        for call in ctx.calls():
            if call_method(call) != "generate" or not isinstance(call.func, ast.Attribute):
                continue
            if _model_kind(ctx, call.func.value) is not True:
                continue
            encoded = _padded_encoding(ctx, call)
            if encoded is None:
                continue
            ectx, enc = encoded
            for where_ctx, node, how in _right_padded_at(ectx, _tokenizer_expr(enc), enc):
                # report in this file: at the tokenizer's origin when it is here, else at the generate call
                at = node if where_ctx is ctx else call
                key = (id(at), at.lineno)
                if key in seen:
                    continue
                seen.add(key)
                place = "" if where_ctx is ctx else f" (tokenizer from {where_ctx.display_path}:{node.lineno})"
                yield self.finding(
                    ctx,
                    at,
                    f"this tokenizer feeds a batched `generate()` of a decoder-only model at line {call.lineno}, "
                    f"and {how}{place}: short prompts are continued after a run of pad tokens",
                    observation=ctx.segment(at, 100),
                    fix='set `tokenizer.padding_side = "left"` before batched generation',
                )

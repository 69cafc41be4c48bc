"""Which way round a padding/attention mask is: true where a position is real (*keep*) or where it is padding (*block*).

Masks are built in a few recognisable ways, and each tells its polarity:

* ``ids != pad_id`` / ``ids.ne(pad)`` is *keep*; ``ids == pad_id`` / ``ids.eq(pad)`` is *block*;
* ``arange(L)[None] < lengths[:, None]`` (or ``lengths > arange``) is *keep*; ``>=`` is *block*;
* a tokenizer's ``attention_mask`` (``batch["attention_mask"]``, ``enc.attention_mask``) is *keep*;
* ``F.unfold``/``F.pad`` of a ones tensor (1 on real pixels, 0 on the zero padding) is *keep*;
* ``~m``, ``m.logical_not()``, ``1 - m``, ``m == 0``, ``m.eq(0)`` invert; ``m.bool()``, ``m != 0``, ``m > 0``,
  ``m == 1``, indexing, ``unsqueeze``/``view``/``expand`` and einops ``repeat``/``rearrange`` keep the polarity.

:func:`polarity` follows local names, ``self.`` attributes and parameters (through every caller, which must
agree), and answers ``None`` when it cannot tell. The sinks say what they expect: ``masked_fill(m, -inf)``
and ``*_key_padding_mask=`` block where ``m`` is true; ``torch.where(m, scores, -inf)`` and a transformers
model's ``attention_mask=`` keep where it is true (:func:`expected_polarity`).
"""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted

KEEP = "keep"
BLOCK = "block"
MAX_DEPTH = 10

_SAME_METHODS = frozenset(
    {"bool", "float", "long", "int", "half", "byte", "to", "type", "type_as", "unsqueeze", "view", "reshape", "expand",
     "expand_as", "repeat", "contiguous", "clone", "detach", "cuda", "cpu", "flatten", "squeeze", "permute", "transpose",
     "unsqueeze_", "bool_"}
)
_SAME_FUNCTIONS = frozenset({"einops.repeat", "einops.rearrange", "torch.unsqueeze", "torch.flatten"})
_UNFOLD_PAD = frozenset({"torch.nn.functional.unfold", "torch.nn.functional.pad"})
_ONES = frozenset({"torch.ones", "torch.ones_like", "numpy.ones"})
_PAD_KEYWORDS = frozenset({"key_padding_mask", "src_key_padding_mask", "tgt_key_padding_mask", "memory_key_padding_mask"})


def _invert(p: str | None) -> str | None:
    return {KEEP: BLOCK, BLOCK: KEEP}.get(p)  # type: ignore[arg-type]


def _is_pad_id(ctx: FileContext, expr: ast.AST) -> bool:
    name = (dotted(expr) or "").lower()
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, str):
        name = expr.slice.value.lower()
    return "pad" in name.replace("padding_side", "")


_TOKEN_WORDS = ("ids", "token", "tokens", "seq", "src", "tgt", "input", "inputs", "text", "question", "words", "caption", "sentence")


def _is_token_ids(expr: ast.AST) -> bool:
    """A token-id tensor by its name (``input_ids``, ``src``, ``tokens``): ``== 0`` then compares with the pad id 0."""
    root = vo.root_name(expr)
    return root is not None and any(w in _TOKEN_WORDS for w in vo.words(root))


def _is_arange(ctx: FileContext, expr: ast.AST) -> bool:
    while isinstance(expr, ast.Subscript) or (isinstance(expr, ast.Call) and call_method(expr) in _SAME_METHODS and isinstance(expr.func, ast.Attribute) and isinstance(expr.func.value, ast.Call)):
        expr = expr.value if isinstance(expr, ast.Subscript) else expr.func.value  # type: ignore[union-attr]
    return isinstance(expr, ast.Call) and (ctx.qualname(expr) or "").endswith("arange")


def _compare(ctx: FileContext, node: ast.Compare, depth: int) -> str | None:
    if len(node.ops) != 1:
        return None
    left, op, right = node.left, node.ops[0], node.comparators[0]
    value = constant(right)
    if value in (0, 1, True, False) and not _is_pad_id(ctx, left):
        inner = polarity(ctx, left, depth + 1)
        if inner is None and value == 0 and _is_token_ids(left):
            return BLOCK if isinstance(op, ast.Eq) else KEEP if isinstance(op, ast.NotEq) else None
        if inner is None:
            return None
        truthy = bool(value)
        if isinstance(op, (ast.Eq, ast.Is)):
            return inner if truthy else _invert(inner)
        if isinstance(op, (ast.NotEq, ast.IsNot)):
            return _invert(inner) if truthy else inner
        if isinstance(op, ast.Gt) and value == 0:
            return inner
        if isinstance(op, ast.Lt) and value == 1:
            return _invert(inner)
        return None
    if _is_pad_id(ctx, right) or _is_pad_id(ctx, left):
        if isinstance(op, ast.Eq):
            return BLOCK
        if isinstance(op, ast.NotEq):
            return KEEP
        return None
    for arange_side, flip in ((left, False), (right, True)):
        if _is_arange(ctx, arange_side):
            if isinstance(op, (ast.Lt, ast.LtE)):
                return BLOCK if flip else KEEP
            if isinstance(op, (ast.Gt, ast.GtE)):
                return KEEP if flip else BLOCK
    return None


def _method_compare(ctx: FileContext, call: ast.Call, method: str, depth: int) -> str | None:
    receiver = call.func.value  # type: ignore[union-attr]
    if not call.args:
        return None
    arg = call.args[0]
    value = constant(arg)
    if value in (0, 1) and not _is_pad_id(ctx, receiver):
        inner = polarity(ctx, receiver, depth + 1)
        if method == "eq":
            return inner if value == 1 else _invert(inner)
        if method == "ne":
            return _invert(inner) if value == 1 else inner
        if method == "gt" and value == 0:
            return inner
        return None
    if _is_pad_id(ctx, arg):
        return BLOCK if method == "eq" else KEEP if method == "ne" else None
    return None


def polarity(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> str | None:
    """``KEEP``, ``BLOCK`` or ``None`` (unknown) for a mask expression."""
    if expr is None or depth > MAX_DEPTH:
        return None
    if isinstance(expr, ast.UnaryOp):
        if isinstance(expr.op, (ast.Invert, ast.Not)):
            return _invert(polarity(ctx, expr.operand, depth + 1))
        return None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Sub) and constant(expr.left) in (1, 1.0, True):
        return _invert(polarity(ctx, expr.right, depth + 1))
    if isinstance(expr, ast.Compare):
        return _compare(ctx, expr, depth)
    if isinstance(expr, ast.Subscript):
        key = expr.slice
        if isinstance(key, ast.Constant) and key.value == "attention_mask":
            return KEEP
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return None
        return polarity(ctx, expr.value, depth + 1)
    if isinstance(expr, ast.Attribute) and expr.attr == "attention_mask" and not (isinstance(expr.value, ast.Name) and expr.value.id == "self"):
        return KEEP
    if isinstance(expr, ast.Call):
        return _call(ctx, expr, depth)
    if isinstance(expr, ast.Name):
        return _name(ctx, expr, depth)
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        bound = ctx.resolve(expr)
        return polarity(ctx, bound, depth + 1) if bound is not expr else None
    return None


def _call(ctx: FileContext, call: ast.Call, depth: int) -> str | None:
    qual = vo.normalize(ctx.qualname(call)) or ""
    method = call_method(call)
    if qual in _UNFOLD_PAD and call.args:
        source = vo.value(ctx, call.args[0])
        if isinstance(source, ast.Call) and (vo.normalize(ctx.qualname(source)) or "") in _ONES:
            return KEEP
        return polarity(ctx, call.args[0], depth + 1)
    if qual in ("torch.logical_not",) and call.args:
        return _invert(polarity(ctx, call.args[0], depth + 1))
    if qual in _SAME_FUNCTIONS and call.args:
        return polarity(ctx, call.args[0], depth + 1)
    if isinstance(call.func, ast.Attribute) and not _is_module_ref(ctx, call.func.value):
        if method == "logical_not":
            return _invert(polarity(ctx, call.func.value, depth + 1))
        if method in ("eq", "ne", "gt"):
            return _method_compare(ctx, call, method, depth)
        if method in _SAME_METHODS:
            return polarity(ctx, call.func.value, depth + 1)
    return None


def _is_module_ref(ctx: FileContext, expr: ast.AST) -> bool:
    head = dotted(expr)
    return head is not None and head.split(".")[0] in ctx.imports


def _name(ctx: FileContext, name: ast.Name, depth: int) -> str | None:
    func = ctx.enclosing_function(name)
    if func is not None and vo.is_parameter(ctx, name):
        answers = set()
        for site_ctx, call in vo.all_call_sites(ctx, func) + forward_call_sites(ctx, func):
            passed = vo.argument_for(call, func, name.id)
            if passed is None:
                continue
            answers.add(polarity(site_ctx, passed, depth + 1))
        return answers.pop() if len(answers) == 1 else None
    bound = vo.value(ctx, name)
    if bound is None or bound is name:
        return None
    return polarity(ctx, bound, depth + 1)


def forward_call_sites(ctx: FileContext, func: ast.AST) -> list[tuple[FileContext, ast.Call]]:
    """Calls ``module(...)`` that run ``func`` when it is the ``forward`` of a module class, on an instance built
    as ``Cls(...)`` (a local name or ``self.attr``), in this file or a module that names the class."""
    cls = ctx.enclosing_class(func)
    if cls is None or getattr(func, "name", None) != "forward":
        return []
    files = [ctx]
    if ctx.project is not None:
        files += [f for f in ctx.project.files_mentioning(ctx, cls.name) if f is not ctx]
    found = []
    for fctx in files:
        for call in fctx.calls():
            if not isinstance(call.func, (ast.Name, ast.Attribute)):
                continue
            owner = vo.instance_class(fctx, call.func)
            if owner is not None and owner[1] is cls:
                found.append((fctx, call))
    return found


def _large_negative(ctx: FileContext, expr: ast.AST | None) -> bool:
    """``-inf``, ``float('-inf')``, ``-1e9``, ``-torch.finfo(...).max``, ``torch.finfo(...).min``, ``-10000``."""
    if expr is None:
        return False
    if isinstance(expr, ast.Call) and (call_method(expr) or "") in ("full", "full_like", "new_full", "tensor", "as_tensor"):
        return any(_large_negative(ctx, a) for a in [*expr.args, *(k.value for k in expr.keywords)])
    value = constant(expr)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value <= -1e3
    text = ctx.segment(expr, 80).replace(" ", "").lower()
    return "-inf" in text or "-float('inf')" in text or '-float("inf")' in text or "finfo" in text and (".min" in text or "-" in text[:2]) or text.startswith("-") and ("max" in text or "inf" in text)


def additive_mask_factor(ctx: FileContext, node: ast.BinOp) -> ast.AST | None:
    """``m`` in ``m * -1e9`` / ``(1 - m) * torch.finfo(dtype).min``: an additive attention bias that pushes the
    scores down where ``m`` is 1, so it expects ``m`` to be *block*."""
    if not isinstance(node.op, ast.Mult):
        return None
    if _large_negative(ctx, node.right) and not _large_negative(ctx, node.left):
        return node.left
    if _large_negative(ctx, node.left) and not _large_negative(ctx, node.right):
        return node.right
    return None


def expected_polarity(ctx: FileContext, call: ast.Call) -> list[tuple[ast.AST, str, str]]:
    """(mask expression, the polarity the call expects, how it uses it) for each mask ``call`` consumes."""
    out: list[tuple[ast.AST, str, str]] = []
    method = call_method(call)
    if method in ("masked_fill", "masked_fill_"):
        args = call.args
        if isinstance(call.func, ast.Attribute) and _is_module_ref(ctx, call.func.value):
            args = args[1:]
        if len(args) >= 2 and _large_negative(ctx, args[1]):
            out.append((args[0], BLOCK, "masked_fill(mask, -inf) blocks where the mask is true"))
    elif method == "where" and len(call.args) == 3 and _large_negative(ctx, call.args[2]):
        out.append((call.args[0], KEEP, "where(mask, scores, -inf) keeps where the mask is true"))
    elif method == "where" and len(call.args) == 3 and _large_negative(ctx, call.args[1]):
        out.append((call.args[0], BLOCK, "where(mask, -inf, scores) blocks where the mask is true"))
    for kw in call.keywords:
        if kw.arg in _PAD_KEYWORDS:
            out.append((kw.value, BLOCK, f"{kw.arg}= ignores the positions where it is true"))
        elif kw.arg == "attn_mask" and (vo.normalize(ctx.qualname(call)) or "").endswith("scaled_dot_product_attention"):
            out.append((kw.value, KEEP, "a boolean attn_mask of scaled_dot_product_attention lets attention through where it is true"))
        elif kw.arg == "attention_mask" and _is_transformers_model(ctx, call.func):
            out.append((kw.value, KEEP, "a transformers model attends where attention_mask is 1"))
    return out


def _is_transformers_model(ctx: FileContext, func: ast.AST) -> bool:
    """``model(...)`` / ``self.bert(...)`` where the object was loaded with ``transformers.X.from_pretrained``."""
    if not isinstance(func, (ast.Name, ast.Attribute)):
        return False
    bound = vo.unwrap_module(ctx, vo.value(ctx, func))
    return isinstance(bound, ast.Call) and (vo.normalize(ctx.qualname(bound)) or "").startswith("transformers.")

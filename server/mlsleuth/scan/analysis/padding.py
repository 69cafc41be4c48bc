"""Padded token tensors: where a target tensor was padded, with which value, and whether the pads were masked.

A sequence batch is padded to one length by a buffer filled with a pad id and then
partly overwritten with real tokens (``torch.full(..., pad)`` and ``buf[i, :n] = seq``),
by ``pad_sequence(..., padding_value=pad)``, by a list of ids extended with
``seq + [pad] * (max_len - len(seq))``, or by a tokenizer called with
``padding=...`` (its ``input_ids``). When such a tensor becomes the target of a
cross-entropy whose ``ignore_index`` is not the pad value, every pad position is a
training target.

The questions answered here:

* :func:`padded_source` -- was this expression padded, and with what? It follows
  local names, parameters (through every caller), tuple unpacking of helper
  returns, slices and reshapes, ``list()``/``clone()`` copies, and helpers in this
  file or another module of the project. A name that is rewritten in place
  (``labels[labels == pad] = -100``) or rebuilt with ``masked_fill``/``where`` is
  *masked*: the answer is then ``None``.
* :func:`int_value` -- the integer an expression evaluates to, when it is a literal,
  a module constant, a config namespace entry (``cfg.eos_id`` with
  ``cfg = SimpleNamespace(eos_id=...)`` in ``config.py``), or a parameter whose
  every caller agrees (its default when no caller passes it).

Both say ``None`` ("unknown") rather than guess.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted

MAX_DEPTH = 8

# Calls that copy or re-type a token sequence without changing which ids it holds.
_COPY_METHODS = vo.PASSTHROUGH_METHODS | {"long", "int", "copy", "tolist", "numpy"}
_COPY_FUNCTIONS = frozenset(
    {"list", "tuple", "torch.tensor", "torch.as_tensor", "torch.LongTensor", "numpy.array", "numpy.asarray", "copy.copy", "copy.deepcopy"}
)
_FILLED_BUFFERS = frozenset({"torch.full", "torch.full_like"})
_ZERO_BUFFERS = frozenset({"torch.zeros", "torch.zeros_like"})
_PAD_SEQUENCE = frozenset({"torch.nn.utils.rnn.pad_sequence"})
# Rewrites that usually replace pad positions by the ignore index.
_MASKING_METHODS = frozenset({"masked_fill", "masked_fill_", "where", "index_fill", "index_fill_", "masked_scatter"})
_MASKING_FUNCTIONS = frozenset({"torch.where", "numpy.where"})
_TOKENIZER_METHODS = frozenset({"encode_plus", "batch_encode_plus", "__call__"})
_NAMESPACES = frozenset({"types.SimpleNamespace", "argparse.Namespace", "dict", "easydict.EasyDict"})


@dataclass
class Padded:
    """A tensor padded by ``producer`` with ``pad`` (``None``: the tokenizer's own pad id)."""

    producer: ast.AST
    ctx: FileContext
    pad: ast.expr | None
    via: list[str] = field(default_factory=list)
    pad_ctx: FileContext | None = None  # the file ``pad`` is in, when a caller supplied it

    @property
    def pad_file(self) -> FileContext:
        return self.pad_ctx or self.ctx

    def describe(self) -> str:
        where = f"{self.ctx.display_path}, line {self.producer.lineno}"  # type: ignore[attr-defined]
        what = self.ctx.segment(self.producer, 70)
        return f"{what} ({where})"


def padded_source(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> Padded | None:
    """How ``expr`` was padded, if it is a padded token tensor whose pads were never masked."""
    if expr is None or depth > MAX_DEPTH:
        return None
    if isinstance(expr, ast.Name):
        return _padded_name(ctx, expr, depth)
    if isinstance(expr, ast.Subscript):
        key = expr.slice
        if isinstance(key, ast.Constant) and key.value == "input_ids":
            return _tokenizer_output(ctx, expr.value)
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return None
        return padded_source(ctx, expr.value, depth + 1)
    if isinstance(expr, ast.Attribute):
        if expr.attr == "input_ids":
            return _tokenizer_output(ctx, expr.value)
        if isinstance(expr.value, ast.Name) and expr.value.id == "self":
            bound = ctx.resolve(expr)
            if bound is not None and bound is not expr:
                return padded_source(ctx, bound, depth + 1)
        return None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        pad = _list_padding(expr.right)
        return Padded(expr, ctx, pad) if pad is not None else None
    if not isinstance(expr, ast.Call):
        return None
    qual = vo.normalize(ctx.qualname(expr))
    if qual in _PAD_SEQUENCE:
        value = _keyword(expr, "padding_value", 2)
        return Padded(expr, ctx, value if value is not None else ast.Constant(0))
    if qual in _COPY_FUNCTIONS and expr.args:
        return padded_source(ctx, expr.args[0], depth + 1)
    if qual == "torch.cat" and expr.args and isinstance(expr.args[0], (ast.List, ast.Tuple)):
        for part in expr.args[0].elts:
            found = padded_source(ctx, part, depth + 1)
            if found is not None:
                return found
        return None
    method = call_method(expr)
    if isinstance(expr.func, ast.Attribute) and method in _COPY_METHODS and not _is_module_ref(ctx, expr.func.value):
        return padded_source(ctx, expr.func.value, depth + 1)
    return _returned(ctx, expr, depth)


def _list_padding(expr: ast.AST) -> ast.expr | None:
    """``pad`` of ``[pad] * n`` or ``n * [pad]``, the tail a list of token ids is padded with (``seq + [pad] * n``)."""
    if not isinstance(expr, ast.BinOp) or not isinstance(expr.op, ast.Mult):
        return None
    for side in (expr.left, expr.right):
        if isinstance(side, ast.List) and len(side.elts) == 1:
            return side.elts[0]
    return None


def _padded_name(ctx: FileContext, name: ast.Name, depth: int) -> Padded | None:
    scope = ctx.enclosing_function(name) or ctx.tree
    bound = vo.local_value(ctx, name)
    if isinstance(bound, ast.Call):
        buffer = _filled_buffer(ctx, bound, name.id, scope)
        if buffer is not None:
            return buffer
    if _rewritten_in_place(ctx, name.id, scope):
        return None
    if isinstance(bound, ast.Call) and is_masking(ctx, bound):
        return None
    if bound is not None and bound is not name and not (isinstance(bound, ast.Name) and bound.id == name.id):
        found = padded_source(ctx, bound, depth + 1)
        if found is not None:
            found.via.insert(0, f"`{name.id}` (line {getattr(bound, 'lineno', '?')})")
        return found
    unpacked = unpacked_from_call(ctx, name, scope)
    if unpacked is not None:
        call, index = unpacked
        return _returned(ctx, call, depth, element=index)
    if vo.is_parameter(ctx, name):
        return _from_callers(ctx, name, depth)
    return None


def _filled_buffer(ctx: FileContext, call: ast.Call, name: str, scope: ast.AST) -> Padded | None:
    """``buf = torch.full((B, L), pad)`` (or zeros, or ``x.new_full``) partly overwritten with real tokens."""
    qual = vo.normalize(ctx.qualname(call))
    method = call_method(call)
    if qual in _FILLED_BUFFERS or isinstance(call.func, ast.Attribute) and method == "new_full" and not _is_module_ref(ctx, call.func.value):
        pad = _keyword(call, "fill_value", 1)
    elif qual in _ZERO_BUFFERS:
        pad = ast.Constant(0)
    else:
        return None
    if pad is None or not _partly_written(ctx, name, scope):
        return None
    return Padded(call, ctx, pad)


def _partly_written(ctx: FileContext, name: str, scope: ast.AST) -> bool:
    """Whether ``name[i, :n] = ...`` or ``name[mask] = ...`` writes real tokens into part of the buffer."""
    for target in _subscript_stores(ctx, name, scope):
        index = target.slice
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        for part in parts:
            if isinstance(part, ast.Slice) and (part.lower is not None or part.upper is not None):
                return True
            if not isinstance(part, ast.Slice) and _mentions_mask(part):
                return True
    return False


def _mentions_mask(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        text = sub.id if isinstance(sub, ast.Name) else sub.attr if isinstance(sub, ast.Attribute) else (
            sub.value if isinstance(sub, ast.Constant) and isinstance(sub.value, str) else None
        )
        if text and "mask" in text.lower():
            return True
    return False


def _subscript_stores(ctx: FileContext, name: str, scope: ast.AST) -> list[ast.Subscript]:
    found = []
    for node in ctx.walk_scope(scope):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Subscript) and vo.root_name(target) == name:
                found.append(target)
    return found


def _rewritten_in_place(ctx: FileContext, name: str, scope: ast.AST) -> bool:
    """``labels[labels == pad] = -100`` or ``labels.masked_fill_(...)``: the pads are taken care of."""
    if _subscript_stores(ctx, name, scope):
        return True
    for node in ctx.walk_scope(scope):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _MASKING_METHODS
            and vo.root_name(node.func.value) == name
        ):
            return True
    return False


def is_masking(ctx: FileContext, call: ast.Call) -> bool:
    if vo.normalize(ctx.qualname(call)) in _MASKING_FUNCTIONS:
        return True
    return isinstance(call.func, ast.Attribute) and call.func.attr in _MASKING_METHODS


def _tokenizer_output(ctx: FileContext, expr: ast.AST) -> Padded | None:
    """``enc`` in ``enc["input_ids"]`` when it is the output of a tokenizer called with ``padding=...``."""
    bound = vo.value(ctx, expr) if isinstance(expr, ast.Name) else expr
    if not isinstance(bound, ast.Call) or not _is_tokenizer_call(bound):
        return None
    padding = next((kw.value for kw in bound.keywords if kw.arg == "padding"), None)
    if padding is None or not isinstance(padding, ast.Constant) or padding.value in (False, None, "do_not_pad"):
        return None
    return Padded(bound, ctx, None)


def _is_tokenizer_call(call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in _TOKENIZER_METHODS:
        func = func.value
    name = dotted(func) or ""
    last = name.rsplit(".", 1)[-1].lower()
    return "tok" in last


def unpacked_from_call(ctx: FileContext, name: ast.Name, scope: ast.AST) -> tuple[ast.Call, int] | None:
    """``inputs, targets = make_batch(...)``: the call and the position ``name`` takes in its result."""
    best = None
    for line, stmt, value in vo.bindings(ctx, scope).get(name.id, []):
        if line > name.lineno:
            break
        best = (stmt, value)
    if best is None or best[1] is not None or not isinstance(best[0], ast.Assign):
        return None
    stmt = best[0]
    if not isinstance(stmt.value, ast.Call) or len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Tuple):
        return None
    for i, elt in enumerate(stmt.targets[0].elts):
        if isinstance(elt, ast.Name) and elt.id == name.id:
            return stmt.value, i
    return None


def _returned(ctx: FileContext, call: ast.Call, depth: int, element: int | None = None) -> Padded | None:
    """What a helper defined in this file or the project returns, when every return agrees."""
    found_helper = vo.helper_definition(ctx, call)
    if found_helper is None:
        return None
    hctx, helper = found_helper
    values = vo.returns(helper)
    if not values:
        return None
    found = None
    for value in values:
        if element is not None:
            if not isinstance(value, (ast.Tuple, ast.List)) or element >= len(value.elts):
                return None
            value = value.elts[element]
        hit = padded_source(hctx, value, depth + 1)
        if hit is None:
            return None
        _bind_pad(ctx, call, hctx, helper, hit)
        found = found or hit
    if found is not None:
        found.via.append(f"returned by {helper.name}() ({hctx.display_path}, line {helper.lineno})")  # type: ignore[attr-defined]
    return found


def _bind_pad(ctx: FileContext, call: ast.Call, hctx: FileContext, helper: ast.AST, hit: Padded) -> None:
    """``pad_batch(seqs, pad_idx=cfg.eos_id)``: a pad value that is the helper's parameter takes this call's argument."""
    pad = hit.pad
    if not isinstance(pad, ast.Name) or hit.pad_file is not hctx or hctx.enclosing_function(pad) is not helper:
        return
    if pad.id not in vo.function_params(helper) or vo.bindings(hctx, helper).get(pad.id):
        return
    arg = vo.argument_for(call, helper, pad.id)
    if arg is None:
        arg = vo.parameter_default(helper, pad.id)
        if arg is None:
            return
        ctx = hctx
    hit.pad, hit.pad_ctx = arg, ctx


def _from_callers(ctx: FileContext, name: ast.Name, depth: int) -> Padded | None:
    """A parameter: padded when every caller (at least one) passes a padded tensor."""
    func = ctx.enclosing_function(name)
    if func is None:
        return None
    found = None
    for sctx, site in vo.all_call_sites(ctx, func):
        arg = vo.argument_for(site, func, name.id)
        hit = padded_source(sctx, arg, depth + 1) if arg is not None else None
        if hit is None:
            return None
        found = found or hit
    return found


def _keyword(call: ast.Call, name: str, position: int) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    if len(call.args) > position and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return call.args[position]
    return None


def _is_module_ref(ctx: FileContext, expr: ast.AST) -> bool:
    head = dotted(expr)
    return head is not None and head.split(".")[0] in ctx.imports


# -- integer values -------------------------------------------------------------------


def int_value(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> int | None:
    """The integer ``expr`` evaluates to, when it can be told without running anything."""
    if expr is None or depth > MAX_DEPTH:
        return None
    if isinstance(expr, ast.Constant):
        return expr.value if isinstance(expr.value, int) and not isinstance(expr.value, bool) else None
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        inner = int_value(ctx, expr.operand, depth + 1)
        return -inner if inner is not None else None
    if isinstance(expr, ast.Name):
        return _int_name(ctx, expr, depth)
    if isinstance(expr, ast.Attribute):
        if isinstance(expr.value, ast.Name) and expr.value.id == "self":
            bound = ctx.resolve(expr)
            return int_value(ctx, bound, depth + 1) if bound is not None and bound is not expr else None
        if isinstance(expr.value, ast.Name):
            return _namespace_entry(ctx, expr.value, expr.attr, depth)
    return None


def _int_name(ctx: FileContext, name: ast.Name, depth: int) -> int | None:
    bound = vo.local_value(ctx, name)
    if bound is not None and bound is not name and not (isinstance(bound, ast.Name) and bound.id == name.id):
        return int_value(ctx, bound, depth + 1)
    func = ctx.enclosing_function(name)
    if func is not None and name.id in vo.function_params(func) and not vo.bindings(ctx, func).get(name.id):
        return _param_value(ctx, func, name.id, depth)
    if func is not None and vo.bindings(ctx, func).get(name.id):
        return None
    local = vo.module_value(ctx, name.id)
    if local is not None:
        return int_value(ctx, local, depth + 1)
    if ctx.project is not None:
        found = ctx.project.module_variable(ctx, name.id)
        if found is not None:
            return int_value(found[0], found[1], depth + 1)
    return None


def _param_value(ctx: FileContext, func: ast.AST, param: str, depth: int) -> int | None:
    """The value every caller gives ``param`` (its default where a caller leaves it out)."""
    default = vo.parameter_default(func, param)
    answers = set()
    for sctx, site in vo.all_call_sites(ctx, func):
        if any(isinstance(a, ast.Starred) for a in site.args) or any(kw.arg is None for kw in site.keywords):
            return None
        arg = vo.argument_for(site, func, param)
        answers.add(int_value(sctx, arg, depth + 1) if arg is not None else int_value(ctx, default, depth + 1))
    if not answers:
        answers.add(int_value(ctx, default, depth + 1))
    return answers.pop() if len(answers) == 1 else None




def _namespace_entry(ctx: FileContext, holder: ast.Name, attr: str, depth: int) -> int | None:
    """``cfg.eos_id`` with ``cfg = SimpleNamespace(eos_id=...)`` here or in an imported config module."""
    table: tuple[FileContext, ast.AST] | None = None
    local = vo.value(ctx, holder)
    if isinstance(local, ast.Call):
        table = (ctx, local)
    elif ctx.project is not None:
        table = ctx.project.module_variable(ctx, holder.id)
    if table is None or not isinstance(table[1], ast.Call):
        return None
    tctx, call = table
    if vo.normalize(tctx.qualname(call)) not in _NAMESPACES and not (isinstance(call.func, ast.Name) and call.func.id == "dict"):
        return None
    for kw in call.keywords:
        if kw.arg == attr:
            return int_value(tctx, kw.value, depth + 1)
    return None

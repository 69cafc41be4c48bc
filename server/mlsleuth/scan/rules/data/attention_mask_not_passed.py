"""The ``attention-mask-not-passed`` rule: an attention layer that takes a padding mask is called without it on variable-length input."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method
from mlsleuth.scan.analysis.mask_polarity import forward_call_sites
from mlsleuth.scan.registry import Rule, register_rule

# torch attention modules: (their mask keywords, how many positional arguments come before the first mask)
_TORCH_ATTENTION = {
    "torch.nn.MultiheadAttention": (("key_padding_mask", "attn_mask"), 3),
    "torch.nn.TransformerEncoder": (("src_key_padding_mask", "mask"), 1),
    "torch.nn.TransformerEncoderLayer": (("src_key_padding_mask", "src_mask"), 1),
    "torch.nn.TransformerDecoder": (("tgt_key_padding_mask", "memory_key_padding_mask"), 2),
    "torch.nn.Transformer": (("src_key_padding_mask", "tgt_key_padding_mask"), 2),
}
_PACK = frozenset({"torch.nn.utils.rnn.pack_padded_sequence"})
_MASK_USES = frozenset({"masked_fill", "masked_fill_", "where", "masked_select"})


def _optional_mask_params(fctx: FileContext, forward: ast.AST) -> list[str]:
    """Parameters of ``forward`` named like a mask, defaulting to None, that the body applies to scores."""
    args = forward.args  # type: ignore[attr-defined]
    positional = [*args.posonlyargs, *args.args]
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults)) + list(zip(args.kwonlyargs, args.kw_defaults))
    names = [a.arg for a, d in pairs if d is not None and isinstance(d, ast.Constant) and d.value is None and "mask" in a.arg.lower()]
    used = []
    for name in names:
        for call in fctx.calls(forward):
            if call_method(call) in _MASK_USES and any(isinstance(n, ast.Name) and n.id == name for a in call.args for n in ast.walk(a)):
                used.append(name)
                break
    return used


def _callee_masks(ctx: FileContext, call: ast.Call) -> tuple[str, tuple[str, ...], ast.AST | int] | None:
    """(what, mask parameters, forward) when ``call`` runs an attention module that takes an optional mask."""
    if not isinstance(call.func, (ast.Name, ast.Attribute)) or call_method(call) == "forward":
        return None
    bound = vo.unwrap_module(ctx, vo.value(ctx, call.func))
    if isinstance(bound, ast.Call):
        qual = vo.normalize(ctx.qualname(bound)) or ""
        if qual in _TORCH_ATTENTION:
            params, before = _TORCH_ATTENTION[qual]
            return qual.rsplit(".", 1)[-1], params, before
    owner = vo.instance_class(ctx, call.func)
    if owner is None:
        return None
    found = vo.class_method(owner[0], owner[1], "forward")
    if found is None:
        return None
    params = _optional_mask_params(found[0], found[1])
    return (owner[1].name, tuple(params), found[1]) if params else None


def _passes_mask(call: ast.Call, forward: ast.AST | int, params: tuple[str, ...]) -> bool:
    """Whether ``call`` gives the layer a mask (by keyword, by position, or possibly through ``*args``/``**kw``)."""
    if any(kw.arg is None or kw.arg in params or "mask" in (kw.arg or "") for kw in call.keywords):
        return True
    if any(isinstance(a, ast.Starred) for a in call.args):
        return True
    if isinstance(forward, int):
        return len(call.args) > forward
    return any(vo.argument_for(call, forward, p) is not None for p in params)


def _lengths_evidence(ctx: FileContext, func: ast.AST) -> str | None:
    """A name that holds per-example lengths in ``func`` (the lengths of a ``pack_padded_sequence``), unless the
    function asserts they are all equal."""
    lengths = None
    # a call whose qualified name is in _PACK ends in its last part: no such call in the file, no walk
    packs = ctx.calls_named(*{q.rpartition(".")[2] for q in _PACK})
    for call in ctx.calls(func) if packs else ():
        if (vo.normalize(ctx.qualname(call)) or "") in _PACK and len(call.args) >= 2 or (
            (vo.normalize(ctx.qualname(call)) or "") in _PACK and any(k.arg == "lengths" for k in call.keywords)
        ):
            arg = call.args[1] if len(call.args) >= 2 else next(k.value for k in call.keywords if k.arg == "lengths")
            lengths = vo.root_name(arg)
            break
    if lengths is None:
        return None
    for node in ctx.walk_scope(func):
        if isinstance(node, ast.Assert) and any(isinstance(n, ast.Name) and n.id == lengths for n in ast.walk(node.test)):
            return None
    return lengths


def _unused_mask_param(ctx: FileContext, func: ast.AST) -> str | None:
    """A parameter of ``func`` named like a padding mask or lengths that the body never reads, and that callers
    do fill: it has no default, or some caller passes it (an optional ``mask=None`` kept only so the signature
    matches torch's layers is no evidence)."""
    for name in vo.function_params(func):
        low = name.lower()
        if not low.endswith(("mask", "masks", "_len", "_lens", "lengths")):
            continue
        if any(isinstance(n, ast.Name) and n.id == name for n in ctx.walk_scope(func)):
            continue
        if _has_default(func, name) and not _some_caller_passes(ctx, func, name):
            continue
        return name
    return None


def _has_default(func: ast.AST, param: str) -> bool:
    args = func.args  # type: ignore[attr-defined]
    positional = [*args.posonlyargs, *args.args]
    with_default = {a.arg for a in positional[len(positional) - len(args.defaults):]}
    with_default |= {a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None}
    return param in with_default


def _some_caller_passes(ctx: FileContext, func: ast.AST, param: str) -> bool:
    for _sctx, call in vo.all_call_sites(ctx, func) + forward_call_sites(ctx, func):
        passed = vo.argument_for(call, func, param)
        if passed is not None and not (isinstance(passed, ast.Constant) and passed.value is None):
            return True
    return False


@register_rule
class AttentionMaskNotPassed(Rule):
    """An attention layer that takes a padding mask is called without it on variable-length input.

    What it finds: inside a function whose sequences have per-example lengths (it packs them with
    `pack_padded_sequence(x, lengths)`, or it takes a mask or lengths parameter that it never reads though its
    callers fill it), a call of an
    attention layer that accepts a padding mask and gets none: `nn.MultiheadAttention` without
    `key_padding_mask`, `nn.TransformerEncoder` without `src_key_padding_mask`, or a module of the project whose
    `forward` has an optional `mask=None` parameter that it applies to the scores (`masked_fill`, `where`).
    Silent when the function asserts the lengths are all equal (length-bucketed batches).
    Why it matters: the softmax over positions spends attention on the padded tail (zeros from
    `pad_packed_sequence`, or pad embeddings); short sequences in a batch with long ones get a diluted,
    batch-dependent summary. The model still trains, a few points worse, and the mask the layer was written
    to take is dead code.
    How to confirm: run one short example alone and padded next to a long one: the attention weights on the
    padded positions are not zero and the outputs differ.
    What to do instead: build the mask from the lengths (`torch.arange(L)[None] < lengths[:, None]`) or from
    the pad id and pass it at every call of the layer.
    """

    id = "attention-mask-not-passed"
    category = "data"
    severity = "warning"
    triggers = ("mask", "pack_padded_sequence", "_len", "lengths")
    reach = "project"

    def check(self, ctx: FileContext):
        for func in ctx.functions:
            evidence = _lengths_evidence(ctx, func)
            why = f"`{evidence}` gives each sequence its own length" if evidence else None
            if why is None:
                unused = _unused_mask_param(ctx, func)
                why = f"its parameter `{unused}` is never used" if unused else None
            if why is None:
                continue
            for call in ctx.calls(func):
                found = _callee_masks(ctx, call)
                if found is None:
                    continue
                what, params, forward = found
                if _passes_mask(call, forward, params):
                    continue
                yield self.finding(
                    ctx,
                    call,
                    f"{what} takes a padding mask ({', '.join(params)}) but is called without one, while {why}: "
                    "attention goes to the padded positions",
                    observation=ctx.segment(call, 100),
                )

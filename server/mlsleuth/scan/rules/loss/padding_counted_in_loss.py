"""The ``padding-counted-in-loss`` rule: pad positions of a token batch are scored as training targets."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import padding
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, dotted
from mlsleuth.scan.registry import Rule, register_rule

_TOKEN_LOSSES = ("cross_entropy", "nll_loss")
DEFAULT_IGNORE = -100  # what PyTorch's cross-entropy and Hugging Face models' losses skip

# ``self.<name>`` attributes that hold the id a loss should skip.
_PAD_ATTRIBUTE = re.compile(r"^(ignore_index|ignore_idx|ignore_id|pad|pad_value|pad_idx|pad_id|pad_index|pad_token_id|padding_value|padding_idx_loss)$")
# Collators that rebuild ``labels`` from ``input_ids`` with the pads replaced by -100.
_RELABELLING_COLLATORS = ("DataCollatorForLanguageModeling", "DataCollatorForWholeWordMask")


@register_rule
class PaddingCountedInLoss(Rule):
    """Pad positions of a token batch are scored as training targets.

    What it finds: the target of a cross-entropy or NLL loss (or the `labels` a Hugging Face model computes
    its loss from) is a padded token tensor, and the loss does not skip the pad value. Padded tensors are
    recognised where they are built: a buffer filled with a pad id and partly overwritten with real tokens
    (`torch.full((B, L), pad)` then `buf[i, :n] = seq`), `pad_sequence(..., padding_value=pad)`, or the
    `input_ids` of a tokenizer called with `padding=...`. The target is followed through names, slices,
    copies (`list(...)`, `.clone()`), tuple returns of helpers, parameters (through every caller) and other
    modules of the project; the loss's `ignore_index` and the pad value are resolved through constants,
    config namespaces and constructor arguments. It also flags a module that stores a pad or ignore index
    (`self.pad_value`, `self.ignore_index`) that nothing ever reads while its own loss skips another value.
    A target rewritten first (`masked_fill(labels == pad, -100)`, `labels[mask] = -100`) is not flagged,
    nor is a loss whose `ignore_index` is the pad value.
    Why it matters: on right-padded batches most positions are often padding. They are the easiest tokens
    to predict, so the loss falls fast and looks healthy while the real tokens are learnt slowly, and a
    generator learns to emit long runs of pad or end-of-text tokens.
    How to confirm: count the pad positions among the targets of one batch; compute the loss with and
    without `ignore_index=pad` and compare; measure accuracy on real tokens only.
    What to do instead: pass `ignore_index=pad_id` to the loss, or replace pad positions in the labels by
    -100 (`labels.masked_fill(attention_mask == 0, -100)`) before the loss or in the collate function;
    Hugging Face models only skip -100.
    """

    id = "padding-counted-in-loss"
    category = "loss"
    severity = "warning"
    reach = "project"
    triggers = ("cross_entropy", "CrossEntropyLoss", "nll_loss", "NLLLoss", "labels")
    requires = (("pad", "PAD", "full", "zeros", "ignore_index"),)

    def check(self, ctx: FileContext):
        seen: set[int] = set()
        for lc in vo.loss_calls(ctx):
            if lc.name not in _TOKEN_LOSSES or lc.target is None:
                continue
            for finding in (*self._padded_target(ctx, lc), *self._unused_pad_attribute(ctx, lc)):
                if id(lc.call) not in seen:
                    seen.add(id(lc.call))
                    yield finding
        if "labels" in ctx.source and not any(name in ctx.source for name in _RELABELLING_COLLATORS):
            yield from self._padded_labels(ctx)

    # -- a loss call whose target was padded ---------------------------------------------

    def _padded_target(self, ctx: FileContext, lc: vo.LossCall):
        found = padding.padded_source(ctx, lc.target)
        if found is None:
            return
        ignore_expr, ignore = _ignore_index(ctx, lc)
        if ignore_expr is False:
            return  # a criterion object built somewhere this rule cannot see
        if found.pad is not None and ignore_expr is not None and _same_expression(found.pad, ignore_expr):
            return
        pad = padding.int_value(found.pad_file, found.pad) if found.pad is not None else None
        if found.pad is None or pad is None:
            # The tokenizer's pad id, or a pad id known only by name: a token id, never negative.
            if ignore is None or ignore >= 0 or (found.pad is not None and not _names_a_token(found.pad)):
                return
            pad_text = "the tokenizer's pad id" if found.pad is None else f"`{found.pad_file.segment(found.pad, 40)}`"
        else:
            if ignore is None or ignore == pad:
                return
            pad_text = f"{pad}" + (f" (`{found.pad_file.segment(found.pad, 40)}`)" if not isinstance(found.pad, ast.Constant) else "")
        skips = "-100 (the default)" if ignore_expr is None else f"{ignore}"
        chain = " <- ".join(found.via)
        yield self.finding(
            ctx,
            lc.call,
            f"the target of this {lc.name} is a padded token batch (pad value {pad_text}) but the loss skips only "
            f"{skips}: every pad position is counted as a training target",
            observation=(
                f"target `{ctx.segment(lc.target, 60)}` was padded by {found.describe()}"
                + (f" via {chain}" if chain else "")
                + f"; the loss's ignore_index is {skips}"
            ),
            next_test=(
                "Count pad positions among the targets of one batch, then compute the loss with ignore_index set "
                "to the pad id: if the two losses differ a lot, pads have been dominating training."
            ),
        )

    # -- a module that stores a pad/ignore index and never uses it ---------------------------

    def _unused_pad_attribute(self, ctx: FileContext, lc: vo.LossCall):
        cls = ctx.enclosing_class(lc.call)
        method = ctx.enclosing_function(lc.call)
        if cls is None or method is None or _masks_in(ctx, method):
            return
        ignore_expr, ignore = _ignore_index(ctx, lc)
        if ignore_expr is False or ignore is None:
            return
        read = _attributes_read(ctx)
        for attr, values in ctx.self_attributes(cls).items():
            if not _PAD_ATTRIBUTE.match(attr) or attr in read or _read_elsewhere(ctx, attr):
                continue
            stored = padding.int_value(ctx, values[-1])
            if stored is None or stored == ignore:
                continue
            skips = "-100 (the default)" if ignore_expr is None else f"{ignore}"
            yield self.finding(
                ctx,
                lc.call,
                f"`self.{attr}` is {stored} but nothing reads it: this loss skips {skips}, so positions holding "
                f"{stored} (padding) are counted as targets",
                observation=(
                    f"{cls.name} stores `self.{attr}` ({ctx.segment(values[-1], 40)}) and never uses it; "
                    f"{ctx.segment(lc.call, 90)} at line {lc.call.lineno} has ignore_index {skips}"
                ),
                next_test=(
                    f"Count the targets equal to {stored} in one batch; recompute the loss with "
                    f"ignore_index={stored} and compare."
                ),
            )
            return

    # -- Hugging Face labels copied from padded input ids -----------------------------------

    def _padded_labels(self, ctx: FileContext):
        for node, value in _labels_values(ctx):
            found = padding.padded_source(ctx, value)
            if found is None:
                continue
            if found.pad is not None:
                pad = padding.int_value(found.pad_file, found.pad)
                if pad is not None and pad < 0 or pad is None and not _names_a_token(found.pad):
                    continue
            yield self.finding(
                ctx,
                node,
                "`labels` are a copy of padded input ids: Hugging Face losses skip only -100, so every pad "
                "position is trained as a target",
                observation=f"labels `{ctx.segment(value, 60)}` come from {found.describe()}",
                next_test=(
                    "Print one example's labels: if pad ids fill the tail, replace them with -100 "
                    "(`labels.masked_fill(attention_mask == 0, -100)`) and compare the loss."
                ),
            )


def _ignore_index(ctx: FileContext, lc: vo.LossCall) -> tuple[ast.expr | None | bool, int | None]:
    """(expression, value) of the loss's ignore_index; (None, -100) for the default; (False, None) when unknown."""
    if lc.via is None:
        keywords = lc.call.keywords
        kctx = ctx
    else:
        built = _criterion(ctx, lc.call.func)
        if built is None:
            return False, None
        kctx, keywords = ctx, built.keywords
    if any(kw.arg is None for kw in keywords):
        return False, None
    for kw in keywords:
        if kw.arg == "ignore_index":
            return kw.value, padding.int_value(kctx, kw.value)
    return None, DEFAULT_IGNORE


def _criterion(ctx: FileContext, func: ast.AST) -> ast.Call | None:
    bound = vo.value(ctx, func) if isinstance(func, ast.Name) else ctx.resolve(func) if isinstance(func, ast.Attribute) else func
    if isinstance(bound, ast.Call) and vo.normalize(ctx.qualname(bound)) in vo.LOSS_CLASSES:
        return bound
    return None


def _same_expression(a: ast.AST, b: ast.AST) -> bool:
    return ast.dump(a) == ast.dump(b)


def _names_a_token(expr: ast.AST | None) -> bool:
    text = (dotted(expr) if expr is not None else None) or ""
    low = text.lower()
    return ("pad" in low or "eos" in low or "eot" in low) and "ignore" not in low


def _masks_in(ctx: FileContext, func: ast.AST) -> bool:
    """Whether the method rewrites some tensor's entries with an ignore value (masked_fill, where, ``x[m] = -100``)."""
    for node in ctx.walk_scope(func):
        if isinstance(node, ast.Call) and padding.is_masking(ctx, node):
            return True
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Subscript) for t in node.targets):
            value = node.value
            if padding.int_value(ctx, value) is not None and padding.int_value(ctx, value) < 0:
                return True
            if "ignore" in (dotted(value) or "").lower():
                return True
    return False


def _attributes_read(ctx: FileContext) -> set[str]:
    cache = ctx.__dict__.get("_padding_attrs_read")
    if cache is None:
        cache = {n.attr for n in ctx.nodes_of(ast.Attribute) if isinstance(n.ctx, ast.Load)}  # type: ignore[attr-defined]
        ctx.__dict__["_padding_attrs_read"] = cache
    return cache


def _read_elsewhere(ctx: FileContext, attr: str) -> bool:
    """Whether another module of the project mentions ``.attr`` (reads it from an instance)."""
    if ctx.project is None:
        return False
    return any(f".{attr}" in other.source for other in ctx.project.files_mentioning(ctx, attr))


def _labels_values(ctx: FileContext):
    """(node, value) for ``{"labels": v}``, ``x["labels"] = v`` and ``model(..., labels=v)`` outside project code."""
    for node in ctx.nodes_of(ast.Dict):
        for key, value in zip(node.keys, node.values):  # type: ignore[attr-defined]
            if isinstance(key, ast.Constant) and key.value == "labels":
                yield node, value
    for node in ctx.nodes_of(ast.Assign):
        for target in node.targets:  # type: ignore[attr-defined]
            if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) and target.slice.value == "labels":
                yield node, node.value  # type: ignore[attr-defined]
    for call in ctx.calls():
        for kw in call.keywords:
            if kw.arg == "labels" and vo.project_function(ctx, call.func) is None and vo.callee(ctx, call) is None:
                yield call, kw.value

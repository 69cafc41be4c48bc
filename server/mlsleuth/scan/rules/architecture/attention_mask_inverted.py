"""The ``attention-mask-inverted`` rule: a mask that is true on the real positions is used where true means "block" (or the reverse)."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.mask_polarity import (
    BLOCK,
    KEEP,
    additive_mask_factor,
    expected_polarity,
    polarity,
)
from mlsleuth.scan.registry import Rule, register_rule

_MASK_KEYWORDS = frozenset({"attn_mask", "attention_mask"})
_MEANING = {KEEP: "true on the real (non-padding) positions", BLOCK: "true on the padding positions"}


@register_rule
class AttentionMaskInverted(Rule):
    """A mask that is true on the real positions is used where true means "block" (or the reverse).

    What it finds: a padding or attention mask whose polarity can be read from how it was built (`ids != pad`
    and `arange(L) < lengths` are true on real positions; `ids == pad` is true on padding; a tokenizer's
    `attention_mask` is 1 on real tokens; `F.unfold`/`F.pad` of a ones tensor is 1 on real pixels and 0 on the
    padding; `~`, `logical_not`, `1 - m` and `m == 0` invert it), handed to a consumer that expects the other
    polarity: `scores.masked_fill(mask, -inf)` and `key_padding_mask=` / `src_key_padding_mask=` block where the
    mask is true; `torch.where(mask, scores, -inf)`, a boolean `attn_mask=` of `scaled_dot_product_attention`
    and the `attention_mask=` of a transformers model keep where it is true; an additive bias
    `m * -1e9` / `(1 - m) * finfo.min` pushes scores down where `m` is 1. The mask is followed through local
    names, `self.` attributes and the arguments every caller passes.
    Why it matters: attention is then blocked on every real position and spent on the padding (or only on
    padding-free rows the result looks fine). Nothing fails: the model trains on near-random context, and a
    row that is all padding-free gets every score set to -inf, which gives NaN.
    How to confirm: print the mask and the attention weights for one short sequence in a padded batch: the
    weights on the padded positions are not zero (or the real ones are).
    What to do instead: invert the mask where it is used (`masked_fill(~valid, -inf)`,
    `key_padding_mask=attention_mask == 0`), and name masks by what true means (`is_pad`, `is_valid`).
    """

    id = "attention-mask-inverted"
    category = "architecture"
    severity = "error"
    triggers = ("-", "finfo", "key_padding_mask", "attn_mask", "attention_mask")
    requires = (("mask",),)

    def check(self, ctx: FileContext):
        for call in ctx.calls_named("masked_fill", "masked_fill_", "where") + [
            c for c in ctx.calls() if any(kw.arg in _MASK_KEYWORDS or (kw.arg or "").endswith("key_padding_mask") for kw in c.keywords)
        ]:
            for mask, wanted, how in expected_polarity(ctx, call):
                got = polarity(ctx, mask)
                if got is None or got == wanted:
                    continue
                yield self.finding(
                    ctx,
                    call,
                    f"the mask is {_MEANING[got]}, but {how}: attention is blocked on the wrong positions",
                    observation=ctx.segment(call, 120),
                )
        for node in ctx.nodes_of(ast.BinOp):
            factor = additive_mask_factor(ctx, node)  # type: ignore[arg-type]
            if factor is None or polarity(ctx, factor) != KEEP:
                continue
            yield self.finding(
                ctx,
                node,
                f"the additive mask `{ctx.segment(node, 60)}` pushes scores down where `{ctx.segment(factor, 40)}` is 1, "
                f"and that is {_MEANING[KEEP]}: attention is blocked on the wrong positions",
                observation=ctx.segment(node, 120),
            )

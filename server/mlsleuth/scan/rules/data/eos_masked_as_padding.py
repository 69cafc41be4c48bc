"""The ``eos-masked-as-padding`` rule: the pad token is the EOS token, and pad ids are dropped from the labels."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis.context import FileContext, constant, dotted, keyword
from mlsleuth.scan.registry import Rule, register_rule

_REF = r"[A-Za-z_][\w\.]*(?:\[[^\]\n]{1,40}\])?"
# tokenizer.pad_token = tokenizer.eos_token / pad_token_id = eos_token_id / from_pretrained(..., pad_token=tok.eos_token)
_PAD_IS_EOS = re.compile(rf"\bpad_token(?:_id)?\s*=\s*{_REF}\.eos_token(?:_id)?\b")
# texts that end with an EOS the model should learn to produce
_EOS_APPENDED = re.compile(
    rf"\+\s*{_REF}\.eos_token\b|\{{\s*{_REF}\.eos_token\s*\}}|add_eos_token\s*=\s*True|\[\s*{_REF}\.eos_token_id\s*\]"
    rf"|\.append\(\s*{_REF}\.eos_token_id\s*\)|\+\s*f?[\"'](?:<\|endoftext\|>|</s>|<\|im_end\|>|<\|eot_id\|>)[\"']"
)
_COLLATORS = ("DataCollatorForLanguageModeling", "DataCollatorForCompletionOnlyLM")


def _masks_pad_ids(ctx: FileContext):
    """Where label positions equal to the pad id are set to the ignore index: an LM collator (mlm=False),
    ``labels[labels == tok.pad_token_id] = -100``, ``masked_fill(ids == pad_id, -100)``, ``-100 if t == pad_id else t``."""
    for call in ctx.calls_named(*_COLLATORS):
        name = (dotted(call.func) or "").rsplit(".", 1)[-1]
        if name == "DataCollatorForLanguageModeling":
            mlm = keyword(call, "mlm")
            if mlm is None and len(call.args) > 1:
                mlm = call.args[1]
            if constant(mlm) is not False:
                continue
        yield call, f"`{name}` sets every label equal to the pad id to -100"
    for compare in ctx.nodes_of(ast.Compare):
        if len(compare.ops) != 1 or not isinstance(compare.ops[0], ast.Eq):
            continue
        sides = (compare.left, compare.comparators[0])
        if not any((dotted(s) or "").endswith("pad_token_id") for s in sides):
            continue
        stmt = next((a for a in ctx.ancestors(compare) if isinstance(a, ast.stmt)), None)
        if stmt is None:
            continue
        ignores = any(constant(n) == -100 for n in ast.walk(stmt)) or any(
            isinstance(n, ast.Name) and "IGNORE" in n.id.upper() for n in ast.walk(stmt)
        )
        if ignores:
            yield compare, "the labels equal to the pad id are set to the ignore index"


def _project_text(ctx: FileContext, pattern: re.Pattern[str]) -> bool:
    return bool(pattern.search(ctx.source)) or (ctx.project is not None and ctx.project.package_matches(ctx, pattern))


@register_rule
class EosMaskedAsPadding(Rule):
    """The pad token is the EOS token, then pad ids are masked from labels

    What it finds: `tokenizer.pad_token = tokenizer.eos_token` (or `pad_token_id = eos_token_id`) in a
    project whose training texts end with an EOS (`text + tokenizer.eos_token`, `add_eos_token=True`,
    `ids + [tokenizer.eos_token_id]`), and labels masked by pad id: `DataCollatorForLanguageModeling(...,
    mlm=False)`, TRL's `DataCollatorForCompletionOnlyLM`, or `labels[labels == tokenizer.pad_token_id] =
    -100` and its `masked_fill`/`where` forms.
    Why it matters: the masking cannot tell padding from the real end of a text, so every EOS label becomes
    -100 as well. The model is never trained to emit EOS, and the fine-tuned model rambles on to
    `max_new_tokens` at generation time. Loss and perplexity look normal.
    How to confirm: collate one batch and count the labels equal to `eos_token_id` at positions where
    `attention_mask` is 1: there are none.
    What to do instead: use a distinct pad token (`tokenizer.add_special_tokens({"pad_token": "<pad>"})`
    and resize the embeddings, or the model's reserved pad token), or build the labels from the attention
    mask (`labels[attention_mask == 0] = -100`) so that the real EOS stays a target.
    """

    id = "eos-masked-as-padding"
    category = "data"
    severity = "warning"
    triggers = ("DataCollatorForLanguageModeling", "DataCollatorForCompletionOnlyLM", "pad_token_id")
    reach = "project"

    def check(self, ctx: FileContext):
        if not _project_text(ctx, _PAD_IS_EOS) or not _project_text(ctx, _EOS_APPENDED):
            return
        for node, how in _masks_pad_ids(ctx):
            yield self.finding(
                ctx,
                node,
                f"the pad token is the EOS token and {how}: the real EOS at the end of each text is masked too, "
                "so the model never learns to stop",
                next_test="Collate a batch and count labels == eos_token_id where attention_mask == 1: there are none.",
            )

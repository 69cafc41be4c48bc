"""The ``generation-scored-with-prompt`` rule: a decoder-only model's whole output, prompt included, is scored."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis.context import FileContext, keyword
from mlsleuth.scan.analysis.hf_models import decoder_only_origin
from mlsleuth.scan.registry import Rule, register_rule

# calls that score predictions against references
_METRIC_CALL = re.compile(
    r"(?:^|_)(?:compute|add_batch|accuracy_score|f1_score|precision_score|recall_score|exact_match\w*|rouge\w*"
    r"|bleu\w*|corpus_bleu|sentence_bleu|corpus_chrf|wer|cer|score)$"
)
# what a prompt is removed from decoded text with
_NORMALISE = frozenset({"strip", "lower", "upper", "casefold"})
_STRIPPING = frozenset({"split", "rsplit", "partition", "rpartition", "replace", "removeprefix", "find", "index", "rfind"})


def _call_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _assigned_name(ctx: FileContext, node: ast.AST) -> str | None:
    stmt = ctx.parent(node)
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    return None


def _whole_output(expr: ast.AST, out: str) -> bool:
    """``out``, ``out.sequences``, ``out[0]`` or ``out.sequences[i]``: rows with the prompt still at their front."""
    if isinstance(expr, ast.Attribute) and expr.attr == "sequences":
        expr = expr.value
    elif isinstance(expr, ast.Subscript) and not isinstance(expr.slice, (ast.Slice, ast.Tuple)):
        return _whole_output(expr.value, out)
    return isinstance(expr, ast.Name) and expr.id == out


def _decoded_holders(ctx: FileContext, scope: ast.AST, out: str, after: int) -> list[tuple[ast.Call, str]]:
    """(decode call, the name that holds its text or the list it is appended to) for each decode of ``out``."""
    found = []
    for call in ctx.calls(scope):
        if call.lineno < after or _call_name(call) not in ("decode", "batch_decode") or not call.args:
            continue
        if not _whole_output(call.args[0], out):
            continue
        holder = _assigned_name(ctx, call)
        parent = ctx.parent(call)
        if holder is None and isinstance(parent, ast.Call) and _call_name(parent) in ("append", "extend"):
            receiver = parent.func.value if isinstance(parent.func, ast.Attribute) else None
            holder = receiver.id if isinstance(receiver, ast.Name) else None
        if holder is not None:
            found.append((call, holder))
    return found


def _stripped(ctx: FileContext, root: ast.AST, holder: str) -> bool:
    """Whether the text held by ``holder`` is cut anywhere: sliced, split, replaced, or read item by item."""
    for node in ctx.walk_scope(root):
        if isinstance(node, ast.Attribute) and node.attr in _STRIPPING and isinstance(node.value, ast.Name) \
                and node.value.id == holder:
            return True
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == holder:
            return True
        if isinstance(node, ast.comprehension) and isinstance(node.iter, ast.Name) and node.iter.id == holder:
            return True
        if isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.iter, ast.Name) and node.iter.id == holder:
            return True
    return False


def _reads(expr: ast.AST, holder: str) -> bool:
    """``holder`` itself or a case/whitespace normalisation of it (``holder.strip().lower()``)."""
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _NORMALISE:
        expr = expr.func.value
    return isinstance(expr, ast.Name) and expr.id == holder


def _scored(ctx: FileContext, root: ast.AST, holder: str) -> ast.AST | None:
    """The metric call or the ``==`` that reads ``holder`` as predictions."""
    for node in ctx.walk_scope(root):
        if isinstance(node, ast.Call) and _METRIC_CALL.search(_call_name(node)):
            args = [*node.args, *(kw.value for kw in node.keywords)]
            if any(_reads(a, holder) for a in args):
                return node
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
            sides = (node.left, node.comparators[0])
            # a literal on the other side is a check of the text (`text == ""`), not a reference
            if any(_reads(s, holder) for s in sides) and not any(isinstance(s, ast.Constant) for s in sides):
                return node
    return None


@register_rule
class GenerationScoredWithPrompt(Rule):
    """Decoder-only `generate()` output scored with the prompt still in it

    What it finds: `out = model.generate(...)` on a decoder-only model (`AutoModelForCausalLM`,
    `*ForCausalLM`, `GPT2LMHeadModel`, a PEFT model wrapping one; through `.to()`, `unwrap_model` or a
    helper parameter every caller fills), whose whole rows (`out`, `out.sequences`, `out[0]`) are decoded
    with `tokenizer.decode`/`batch_decode`, and the decoded text (or the list it is appended to) is then
    handed to a metric (`metric.compute(predictions=...)`, `accuracy_score`, `rouge`/`bleu` scorers,
    `exact_match`) or compared with `==`, without being cut anywhere (no slice, `split`, `replace`,
    `removeprefix`, and no per-item processing).
    Why it matters: a decoder-only model returns the prompt tokens followed by the continuation. Decoding
    whole rows puts the prompt into every prediction, so exact-match and accuracy are near zero and
    overlap metrics (ROUGE, BLEU) are inflated by the copied prompt. The evaluation says nothing about
    what the model generated, and fine-tuning decisions made on it are wrong.
    How to confirm: print one decoded prediction next to its prompt: it starts with the prompt text.
    What to do instead: decode only the new tokens,
    `tokenizer.batch_decode(out[:, enc["input_ids"].shape[1]:], skip_special_tokens=True)` (with left
    padding for batches), or strip the prompt from the text before scoring.
    """

    id = "generation-scored-with-prompt"
    category = "evaluation"
    severity = "warning"
    triggers = ("generate",)
    requires = (("decode",), ("CausalLM", "LMHeadModel"))

    def check(self, ctx: FileContext):
        for call in ctx.calls():
            if not (isinstance(call.func, ast.Attribute) and call.func.attr == "generate"):
                continue
            if keyword(call, "inputs_embeds") is not None:  # generating from embeddings returns only new tokens
                continue
            out = _assigned_name(ctx, call)
            if out is None:
                continue
            scope = ctx.enclosing_function(call) or ctx.tree
            model = None
            for decode, holder in _decoded_holders(ctx, scope, out, call.lineno):
                if holder == out or _stripped(ctx, scope, holder):
                    continue
                sink = _scored(ctx, scope, holder)
                if sink is None:
                    continue
                model = model or decoder_only_origin(ctx, call.func.value)
                if model is None:
                    break
                yield self.finding(
                    ctx,
                    decode,
                    f"`{out}` holds the prompt followed by the generated tokens (decoder-only model, line"
                    f" {model.lineno}); decoding whole rows into `{holder}` and scoring it (line {sink.lineno})"
                    " scores the copied prompt as part of every prediction",
                    observation=ctx.segment(decode, 120),
                    next_test="print one decoded prediction next to its prompt: it starts with the prompt text",
                )

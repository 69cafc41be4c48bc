"""The ``packed-documents-no-separator`` rule: documents concatenated into LM blocks with nothing between them."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis.context import FileContext, dotted
from mlsleuth.scan.analysis.value_origins import words
from mlsleuth.scan.registry import Rule, register_rule

# anything that can mark a document boundary: an end/begin-of-text token, a separator, special tokens
_SEPARATOR = re.compile(r"(?<![a-z])(?:eos|eot|bos)(?![a-z])|endoftext|sep_token|add_special_tokens|</s>|<s>|\\n\\n", re.IGNORECASE)
# tokenizers that add no special token around a text (byte-level BPE of the GPT-2 family, tiktoken)
_BARE_TOKENIZERS = re.compile(r"\bgpt2\b|gpt-2|gpt-j|gpt-neo|gpt_neo|pythia|codegen|tiktoken|starcoder|cerebras-gpt", re.IGNORECASE)


def _concatenation(ctx: FileContext, call: ast.Call) -> bool:
    """``chain(*examples[k])``, ``chain.from_iterable(...)``, ``sum(examples[k], [])``: many id lists joined into one."""
    qual = ctx.qualname(call) or dotted(call.func) or ""
    if qual == "itertools.chain" and len(call.args) == 1 and isinstance(call.args[0], ast.Starred):
        return True
    if qual == "itertools.chain.from_iterable" and len(call.args) == 1:
        return True
    return qual == "sum" and len(call.args) == 2 and isinstance(call.args[1], ast.List) and not call.args[1].elts


def _cuts_blocks(fn: ast.AST) -> bool:
    """The function cuts fixed-size blocks: ``range(0, total, block_size)`` with ``t[i:i + block_size]``."""
    has_range = has_slice = False
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range" and len(node.args) == 3:
            has_range = True
        if isinstance(node, ast.Slice) and isinstance(node.upper, ast.BinOp) and isinstance(node.upper.op, ast.Add):
            has_slice = True
    return has_range and has_slice


def _tokenizer_calls(ctx: FileContext) -> list[ast.Call]:
    found = []
    for call in ctx.nodes_of(ast.Call):
        name = dotted(call.func) or ""
        last = name.rsplit(".", 1)[-1]
        if "tokenizer" in words(last) or (last in {"encode", "encode_batch", "encode_ordinary"} and "tok" in name.lower()):
            found.append(call)
    return found


@register_rule
class PackedDocumentsNoSeparator(Rule):
    """Documents packed into LM blocks with no EOS between them.

    What it finds: a `group_texts`-style packing step that joins many tokenized documents into one stream
    (`list(chain(*examples[k]))`, `chain.from_iterable`, `sum(lists, [])`) and cuts it into
    `block_size` blocks, in a project whose tokenizer adds no special tokens (a GPT-2-family or tiktoken
    tokenizer named in the project) and that never appends an end-of-text / separator token anywhere
    (no `eos`, `eot`, `<|endoftext|>`, `sep_token`, `add_special_tokens` in its files).
    Why it matters: nothing marks where one document ends and the next begins. The model is trained to
    continue the end of one document straight into the start of an unrelated one and never sees an
    end-of-text token, so at generation time it does not stop and drifts into other documents. Training
    and validation losses look normal.
    How to confirm: decode one packed block and look at a document boundary: the texts run into each
    other with no separator token.
    What to do instead: append the tokenizer's EOS id to every document before packing
    (`ids + [tokenizer.eos_token_id]`), or append `tokenizer.eos_token` to each raw text.
    """

    id = "packed-documents-no-separator"
    category = "data"
    severity = "warning"
    reach = "project"
    triggers = ("chain", "sum(")

    def check(self, ctx: FileContext):
        for call in ctx.nodes_of(ast.Call):
            if not _concatenation(ctx, call):
                continue
            fn = ctx.enclosing_function(call)
            if fn is None or not _cuts_blocks(fn):
                continue
            if not self._bare_tokenizer_without_separator(ctx):
                return
            tokenizing = _tokenizer_calls(ctx)
            site = tokenizing[0] if len(tokenizing) == 1 else call
            yield self.finding(
                ctx,
                site,
                "documents are tokenized and packed into fixed-size blocks with no end-of-text token between them "
                f"(packing at line {call.lineno}); the tokenizer adds none itself: the model learns to run one "
                "document into the next and never learns to stop",
                observation=f"`{ctx.segment(call, 60)}` in {fn.name}() joins the documents; no EOS/separator appears in the project",
                next_test="Decode one packed block and look at a document boundary: no separator token between the texts.",
            )
            return

    @staticmethod
    def _bare_tokenizer_without_separator(ctx: FileContext) -> bool:
        if _SEPARATOR.search(ctx.source):
            return False
        project = ctx.project
        if project is not None and project.package_matches(ctx, _SEPARATOR):
            return False
        if _BARE_TOKENIZERS.search(ctx.source):
            return True
        return project is not None and project.package_matches(ctx, _BARE_TOKENIZERS)

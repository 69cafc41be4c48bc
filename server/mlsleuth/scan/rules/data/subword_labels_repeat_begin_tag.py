"""The ``subword-labels-repeat-begin-tag`` rule: a word's B- tag copied onto all of its word pieces."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import settings
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.registry import Rule, register_rule

# the project tags spans with begin/inside tags (CoNLL-style NER, chunking)
_BIO = re.compile(r"ner_tags|chunk_tags|[\"']B-|conll|\bIOB2?\b|\bBIO\b")


def _word_ids_loop_var(ctx: FileContext, node: ast.For | ast.comprehension) -> str | None:
    """``for word_idx in word_ids`` where ``word_ids`` comes from ``encoding.word_ids(...)``."""
    if not isinstance(node.target, ast.Name):
        return None
    it = node.iter
    if isinstance(it, ast.Name):
        it = ctx.resolve(it)
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "word_ids":
        return node.target.id
    return None


def _copies(body: list[ast.AST], var: str, tags: set[str]) -> list[ast.Subscript]:
    """``label[word_idx]`` reads that store the word's tag unchanged (not mapped through ``b_to_i[...]``)."""
    found = []
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name) and node.slice.id == var \
                    and isinstance(node.value, ast.Name) and node.value.id in tags:
                found.append(node)
    return found


_TAG_WORDS = frozenset({"label", "labels", "tag", "tags", "ner", "iob", "bio"})


def _tag_names(ctx: FileContext, loop: ast.AST) -> set[str]:
    """Names the word tags live in: names indexed in the loop that read like tags (``label``, ``word_tags``)."""
    return {n.value.id for n in ast.walk(loop) if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)
            and _TAG_WORDS.intersection(vo.words(n.value.id))}


def _mapped(ctx: FileContext, read: ast.Subscript, stop: ast.AST) -> bool:
    """The tag read goes through a lookup or call before it is stored (``b_to_i[label[w]]``, ``to_inside(...)``)."""
    node: ast.AST = read
    for anc in ctx.ancestors(read):
        if anc is stop:
            return False
        if isinstance(anc, ast.Subscript) and anc.slice is node:
            return True
        if isinstance(anc, ast.Call) and node in anc.args and not (isinstance(anc.func, ast.Attribute) and anc.func.attr in {"append", "extend"}):
            return True
        if isinstance(anc, ast.stmt):
            return False
        node = anc
    return False


def _continuation(ctx: FileContext, read: ast.AST, var: str, loop: ast.AST) -> tuple[bool, list[ast.expr]]:
    """Whether ``read`` runs for a continuation piece, and the flag tests (``if label_all_tokens``) on the way."""
    flags: list[ast.expr] = []
    node: ast.AST = read
    compared = False
    for anc in ctx.ancestors(read):
        if anc is loop:
            break
        if isinstance(anc, (ast.If, ast.IfExp)):
            in_body = node in (anc.body if isinstance(anc, ast.If) else [anc.body])
            test = anc.test
            prev = _previous_compare(test, var)
            if prev is not None:
                compared = True
                first_piece = isinstance(prev, ast.NotEq) == in_body
                if first_piece:
                    return False, flags
            elif in_body and not any(isinstance(n, ast.Compare) for n in ast.walk(test)):
                flags.append(test)
            elif not in_body:
                pass
        node = anc
    if not compared:
        # no first-piece test around the read: every piece gets it, unless an earlier branch of the
        # same if-chain handles the first piece
        return _unconditional_all_pieces(ctx, loop, var), flags
    return True, flags


def _previous_compare(test: ast.expr, var: str) -> ast.cmpop | None:
    """``word_idx != previous_word_idx`` / ``==``: the operator, when the test compares the word id with another name."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.NotEq)):
        sides = [test.left, test.comparators[0]]
        names = [s.id for s in sides if isinstance(s, ast.Name)]
        if var in names and len(names) == 2 and names[0] != names[1]:
            return test.ops[0]
    return None


def _unconditional_all_pieces(ctx: FileContext, loop: ast.AST, var: str) -> bool:
    """The loop never tells a first piece from a continuation (no comparison of the word id with a previous one)."""
    for node in ast.walk(loop):
        if isinstance(node, ast.Compare) and _previous_compare(node, var) is not None:
            return False
    return True


def _flag_default(ctx: FileContext, flag: ast.expr) -> object:
    """What an option such as ``label_all_tokens`` is by default: through settings, or, for a closure over an
    outer function's parameter (``make_align_fn(tokenizer, label_all_tokens)``), what every caller passes."""
    found = settings.default_value(ctx, flag)
    if found is not settings.UNKNOWN or not isinstance(flag, ast.Name):
        return found
    for outer in ctx.ancestors(flag):
        if isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef)) and flag.id in vo.function_params(outer):
            sites = vo.all_call_sites(ctx, outer)[:8]
            default = settings.parameter_default(outer, flag.id)
            answers = set()
            for sctx, site in sites:
                arg = vo.argument_for(site, outer, flag.id)
                value = settings.default_value(sctx, arg) if arg is not None else (
                    settings.default_value(ctx, default) if default is not None else settings.UNKNOWN)
                answers.add(value if isinstance(value, bool) else None)
            if not sites and default is not None:
                answers.add(settings.default_value(ctx, default))
            return answers.pop() if len(answers) == 1 else settings.UNKNOWN
    return settings.UNKNOWN


def _piece_count(ctx: FileContext, expr: ast.AST) -> ast.Call | None:
    """``len(pieces)`` where ``pieces = tokenizer.tokenize(word)`` (or ``.encode(...)``): the call that split the word."""
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "len" and len(expr.args) == 1):
        return None
    inner = expr.args[0]
    bound = ctx.resolve(inner) if isinstance(inner, ast.Name) else inner
    if isinstance(bound, ast.Call) and isinstance(bound.func, ast.Attribute) and bound.func.attr in {"tokenize", "encode"}:
        return bound
    return None


def _tag_like(expr: ast.AST) -> bool:
    """``tag``, ``label``, ``label_map[label]``: an expression that reads a word's tag."""
    names = [n.id for n in ast.walk(expr) if isinstance(n, ast.Name)]
    return bool(names) and any(_TAG_WORDS.intersection(vo.words(n)) for n in names)


def _repeated_tags(ctx: FileContext):
    """``[tag] * len(tokenizer.tokenize(word))``: the word's tag repeated once per piece."""
    for node in ctx.nodes_of(ast.BinOp):
        if not isinstance(node.op, ast.Mult):
            continue
        for seq, count in ((node.left, node.right), (node.right, node.left)):
            if isinstance(seq, ast.List) and len(seq.elts) == 1 and _tag_like(seq.elts[0]) and _piece_count(ctx, count):
                yield node
                break


@register_rule
class SubwordLabelsRepeatBeginTag(Rule):
    """Word pieces copy the word's B- tag instead of I- or -100.

    What it finds: label alignment that repeats a word's tag once per piece (`[tag] * len(pieces)` with
    `pieces = tokenizer.tokenize(word)`), or alignment over a fast tokenizer's `word_ids()` that stores `label[word_idx]`
    unchanged for the continuation pieces of a word: in the branch for `word_idx == previous_word_idx`
    (the `label_all_tokens` option of older token-classification scripts, when its default is on or
    cannot be read), or for every piece with no first-piece test at all, in a project whose tags are
    begin/inside tags (`ner_tags`, `"B-"` strings, CoNLL data). A continuation tag mapped through a
    begin-to-inside table (`b_to_i_label[label[word_idx]]`) or replaced by -100
    (`[tag] + [-100] * (len(pieces) - 1)`) stays silent.
    Why it matters: a word tagged B-ORG that splits into three pieces is trained as B-ORG B-ORG B-ORG,
    i.e. three entities, instead of B-ORG I-ORG I-ORG. The model learns to open entities inside words,
    and seqeval on the same aligned labels counts spurious gold entities, so precision, recall and F1
    are computed against the wrong reference. Nothing errors.
    How to confirm: align one sentence with a multi-piece entity word and print the tag names per
    piece: a B- tag repeats inside the word.
    What to do instead: give continuation pieces -100 (label only the first piece), or map B-X to I-X
    for them (`b_to_i_label[label[word_idx]]`).
    """

    id = "subword-labels-repeat-begin-tag"
    category = "data"
    severity = "warning"
    reach = "project"
    triggers = ("word_ids", "tokenize(", "encode(")

    def check(self, ctx: FileContext):
        yield from self._check_word_ids(ctx)
        for node in _repeated_tags(ctx):
            if not self._begin_inside_tags(ctx):
                return
            yield self.finding(
                ctx,
                node,
                f"`{ctx.segment(node, 50)}` gives every word piece the word's tag: a B- tag is repeated inside the "
                f"word, so one entity becomes several",
                observation=f"`{ctx.segment(node, 70)}` repeats the tag once per piece",
                next_test="Align one sentence with a multi-piece entity word and print the tag names per piece.",
            )

    def _check_word_ids(self, ctx: FileContext):
        for loop in ctx.nodes_of(ast.For, ast.ListComp):
            loops = [loop] if isinstance(loop, ast.For) else list(loop.generators)
            for head in loops:
                var = _word_ids_loop_var(ctx, head)
                if var is None:
                    continue
                body = loop.body if isinstance(loop, ast.For) else [loop.elt]
                for read in _copies(body, var, _tag_names(ctx, loop)):
                    if _mapped(ctx, read, loop):
                        continue
                    continuation, flags = _continuation(ctx, read, var, loop)
                    if not continuation or any(_flag_default(ctx, f) is not True for f in flags):
                        continue
                    if not self._begin_inside_tags(ctx):
                        return
                    yield self.finding(
                        ctx,
                        read,
                        f"continuation word pieces get the word's tag unchanged (`{ctx.segment(read, 30)}`): a B- tag is "
                        f"repeated inside the word, so one entity becomes several",
                        observation=f"`{ctx.segment(ctx.parent(read) or read, 70)}` runs for pieces after the first",
                        next_test="Align one sentence with a multi-piece entity word and print the tag names per piece.",
                    )

    @staticmethod
    def _begin_inside_tags(ctx: FileContext) -> bool:
        if _BIO.search(ctx.source):
            return True
        return ctx.project is not None and ctx.project.package_matches(ctx, _BIO)

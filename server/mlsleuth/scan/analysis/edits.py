"""Text edits a rule's fix producer returns, and the helpers to build them from syntax nodes.

A fix is a set of :class:`Edit` s on the source text (character offsets, end exclusive) that
together remove one finding. A rule that can fix some of its findings defines
``fix(self, ctx, finding)`` returning a :class:`Fix` or None (no fix it is certain about);
``scan/fixes.py`` applies the edits, re-parses the file and re-scans it to confirm the finding
is gone before anything is written.

The AST counts columns in UTF-8 bytes; :func:`span` converts them to character offsets of the
source string, so edits stay right on lines with non-ASCII text.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mlsleuth.report import Finding
    from mlsleuth.scan.analysis.context import FileContext

_NEWLINE = re.compile(r"\r\n|\r|\n")  # the line breaks Python's tokenizer knows (str.splitlines knows more)


@dataclass(frozen=True)
class Edit:
    start: int  # character offset into the source text
    end: int  # exclusive; start == end inserts
    text: str


@dataclass(frozen=True)
class Fix:
    title: str  # what the fix does, for --fix and --diff output
    edits: tuple[Edit, ...]
    safe: bool = True  # False: applied only with --unsafe-fixes (it may change what the program does)

    @property
    def start(self) -> int:
        return min(e.start for e in self.edits)

    @property
    def end(self) -> int:
        return max(e.end for e in self.edits)


def line_starts(source: str) -> list[int]:
    """Character offset of the start of every line (index 0 is line 1)."""
    return [0, *(m.end() for m in _NEWLINE.finditer(source))]


def _offsets(ctx: FileContext) -> list[int]:
    cached = getattr(ctx, "_edit_line_starts", None)
    if cached is None:
        cached = line_starts(ctx.source)
        ctx._edit_line_starts = cached  # type: ignore[attr-defined]
    return cached


def offset(ctx: FileContext, line: int, byte_col: int) -> int:
    """Character offset of a (1-based line, UTF-8 byte column) position, as the AST reports them."""
    starts = _offsets(ctx)
    begin = starts[line - 1]
    end = starts[line] if line < len(starts) else len(ctx.source)
    text = ctx.source[begin:end]
    if text.isascii():
        return begin + byte_col
    return begin + len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))


def span(ctx: FileContext, node: ast.AST) -> tuple[int, int]:
    """(start, end) character offsets of ``node``'s source text."""
    return offset(ctx, node.lineno, node.col_offset), offset(ctx, node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]


def text_of(ctx: FileContext, node: ast.AST) -> str:
    start, end = span(ctx, node)
    return ctx.source[start:end]


def node_at(ctx: FileContext, finding: Finding, *types: type) -> ast.AST | None:
    """The node of one of ``types`` that ``finding``'s location covers exactly (None if there is none)."""
    loc = finding.location
    if loc.line is None or loc.column is None or loc.cell is not None:
        return None
    for cls in types:
        for node in ctx.nodes_of(cls):
            if (
                node.lineno == loc.line
                and node.col_offset + 1 == loc.column
                and (loc.end_line is None or node.end_lineno == loc.end_line)
                and (loc.end_column is None or node.end_col_offset + 1 == loc.end_column)
            ):
                return node
    return None


def rename_attribute(ctx: FileContext, node: ast.Attribute, new: str) -> Edit | None:
    """An edit renaming the ``.attr`` part of ``node`` (``F.softmax`` -> ``F.log_softmax``)."""
    start, end = span(ctx, node)
    if not ctx.source[start:end].endswith(node.attr):
        return None  # a comment or line break between the dot and the name: leave it alone
    return Edit(end - len(node.attr), end, new)


def rename_name(ctx: FileContext, node: ast.Name, new: str) -> Edit:
    start, end = span(ctx, node)
    return Edit(start, end, new)


def removes_comment(ctx: FileContext, edits: tuple[Edit, ...] | list[Edit]) -> bool:
    """Whether any edit would delete a ``#`` comment (a fix must never drop the user's words)."""
    return any("#" in ctx.source[e.start:e.end] and _has_comment(ctx.source[e.start:e.end]) for e in edits)


def _has_comment(text: str) -> bool:
    import io
    import tokenize

    try:
        return any(tok.type == tokenize.COMMENT for tok in tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return True  # a fragment that does not tokenize: assume the worst


def import_edit(ctx: FileContext, statement: str) -> Edit:
    """An edit inserting ``statement`` (e.g. ``import math``) on its own line before the first
    top-level statement that is not the module docstring or a ``from __future__`` import."""
    body = ctx.tree.body
    index = 0
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        index = 1
    while index < len(body) and isinstance(body[index], ast.ImportFrom) and body[index].module == "__future__":
        index += 1
    newline = m.group(0) if (m := _NEWLINE.search(ctx.source)) else "\n"
    if index < len(body):
        at = offset(ctx, body[index].lineno, 0)
        return Edit(at, at, statement + newline)
    tail = "" if not ctx.source or ctx.source.endswith(("\n", "\r")) else newline
    return Edit(len(ctx.source), len(ctx.source), tail + statement + newline)


def module_alias(ctx: FileContext, module: str) -> str | None:
    """How module-level code can name ``module``: the alias an import binds to it (``np`` for
    ``import numpy as np``, ``F`` for ``import torch.nn.functional as F``), else its full dotted name
    when an ``import`` binds its top package (``import torch``), else None. Imports inside functions
    do not count."""
    reachable = False
    for stmt in ctx.tree.body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname and alias.name == module:
                    return alias.asname
                if not alias.asname and alias.name.split(".")[0] == module.split(".")[0]:
                    reachable = True
        elif isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module:
            for alias in stmt.names:
                if f"{stmt.module}.{alias.name}" == module:
                    return alias.asname or alias.name
    return module if reachable else None

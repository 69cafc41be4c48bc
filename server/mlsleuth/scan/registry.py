"""The static-rule registry.

A rule is a class with a four-section docstring (see :mod:`mlsleuth.catalog`),
class attributes ``id``, ``category``, ``severity`` and ``triggers``, and a
``check(ctx)`` method yielding findings. Decorate it with :func:`register_rule`::

    @register_rule
    class LogOfSoftmax(Rule):
        '''`log(softmax(x))` instead of `log_softmax(x)`.

        What it finds: ...
        Why it matters: ...
        How to confirm: ...
        What to do instead: ...
        '''

        id = "log-of-softmax"
        category = "numerical"
        severity = "warning"
        triggers = ("softmax",)

        def check(self, ctx):
            for call in ctx.calls():
                ...
                yield self.finding(ctx, call, "...")

``triggers`` are plain substrings; a file that contains none of any active
rule's triggers is never parsed (the scanner asks ripgrep for candidates
first), so every rule must list the words it cannot fire without.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar

from mlsleuth import catalog
from mlsleuth.report import Finding, Location

if TYPE_CHECKING:
    from mlsleuth.scan.context import FileContext

TOOL = "scan"


class Rule:
    id: ClassVar[str]
    category: ClassVar[str]
    severity: ClassVar[str]
    triggers: ClassVar[tuple[str, ...]]
    doc: ClassVar[catalog.RuleDoc]

    def check(self, ctx: FileContext) -> Iterator[Finding]:  # pragma: no cover - abstract
        raise NotImplementedError

    def finding(
        self,
        ctx: FileContext,
        node: ast.AST,
        message: str,
        *,
        observation: str | None = None,
        next_test: str | None = None,
        fix: str | None = None,
        severity: str | None = None,
        measurements: dict[str, Any] | None = None,
        end_node: ast.AST | None = None,
    ) -> Finding:
        """A finding located at ``node``; the observation defaults to the node's source line."""
        line = getattr(node, "lineno", None)
        col = getattr(node, "col_offset", None)
        last = end_node or node
        end_line = getattr(last, "end_lineno", None)
        end_col = getattr(last, "end_col_offset", None)
        func = ctx.enclosing_function_name(node)
        return Finding(
            rule=self.id,
            category=self.category,  # type: ignore[arg-type]
            severity=(severity or self.severity),  # type: ignore[arg-type]
            message=message,
            location=Location(
                path=ctx.display_path,
                line=line,
                column=col + 1 if col is not None else None,
                end_line=end_line,
                end_column=end_col + 1 if end_col is not None else None,
                function=func,
            ),
            observation=observation if observation is not None else ctx.line_text(line),
            next_test=next_test if next_test is not None else self.doc.confirm,
            fix=fix if fix is not None else self.doc.instead,
            measurements=measurements or {},
        )


RULES: dict[str, type[Rule]] = {}


def register_rule(cls: type[Rule]) -> type[Rule]:
    for attr in ("id", "category", "severity", "triggers"):
        if not hasattr(cls, attr):
            raise catalog.CatalogError(f"rule class {cls.__name__} lacks `{attr}`")
    if not cls.triggers or not all(isinstance(t, str) and t for t in cls.triggers):
        raise catalog.CatalogError(f"rule {cls.id}: triggers must be a non-empty tuple of non-empty strings")
    if cls.id in RULES and RULES[cls.id] is not cls:
        raise catalog.CatalogError(f"rule id {cls.id!r} defined twice")
    cls.doc = catalog.register(catalog.parse_doc(cls.id, TOOL, cls.category, cls.severity, cls.__doc__))
    RULES[cls.id] = cls
    return cls


def all_rules() -> dict[str, type[Rule]]:
    """Every registered rule class by id (importing the rule modules first)."""
    import mlsleuth.scan.rules  # noqa: F401 - registers on import

    return dict(sorted(RULES.items()))

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

Each rule lives in its own module, ``scan/rules/<category>/<rule_id>.py`` (the id with
``_`` for ``-``); :func:`load_rule_modules` finds and imports them all, so a new rule
is one new file.

``triggers`` are plain substrings; a file that contains none of any active
rule's triggers is never parsed (the scanner asks ripgrep for candidates
first), so every rule must list the words it cannot fire without.

``requires`` narrows further: a tuple of groups, each a tuple of substrings
or patterns from :mod:`mlsleuth.scan.prefilter` (:func:`word`, :func:`any_case`, :data:`STEP_CALL`, :func:`call_to`
for "some call of one of these names", :data:`MODULE_CLASS` for "a class that
may derive from an nn.Module"), and the file must contain something from
*every* group as well as one trigger. Groups are checked cheapest first. A
rule runs on a file only when :meth:`Rule.applies_to` says so, and the file
is parsed only when some active rule applies. Both are necessary conditions, never
heuristics: every entry must be text that any file the rule can fire on
necessarily contains (an identifier a qualified name resolves through, a
word the rule's own text test needs). ``tests/scan/test_prefilter.py`` runs
every rule ungated on every test fixture and fails when a rule fires on a
source its gate would have skipped.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar

from mlsleuth import catalog
from mlsleuth.report import Finding, Location
from mlsleuth.scan.prefilter import (
    CallTo,
    ModuleClassHeader,
    NoCase,
    Term,
    TextProbe,
    Word,
    cheapest_first,
    gate_terms,
)

if TYPE_CHECKING:
    from mlsleuth.scan.analysis.context import FileContext
    from mlsleuth.scan.analysis.edits import Fix

TOOL = "scan"


class Rule:
    id: ClassVar[str]
    category: ClassVar[str]
    severity: ClassVar[str]
    triggers: ClassVar[tuple[str, ...]]
    requires: ClassVar[tuple[tuple[Term, ...], ...]] = ()
    # How far the rule follows a value: "file" (functions, classes and helpers of the file) or
    # "project" (also imports, callers in other files and base classes; see analysis/project.py).
    reach: ClassVar[str] = "file"
    # A rule that can fix some findings mechanically overrides ``fix`` and says in ``fix_note`` what
    # ``mlsleuth scan --fix`` rewrites and when the fix is unsafe (printed in refs/rules.md).
    fix_note: ClassVar[str] = ""
    fix_unsafe_only: ClassVar[bool] = False  # every fix it offers is unsafe (needs --unsafe-fixes)
    doc: ClassVar[catalog.RuleDoc]

    _gate: ClassVar[tuple[tuple[Any, ...], ...]] = ()

    @classmethod
    def applies_to(cls, text: str | TextProbe) -> bool:
        """Whether the rule can fire on ``text`` at all: one trigger and something of every ``requires`` group."""
        probe = text if isinstance(text, TextProbe) else TextProbe(text)
        return all(any(probe.has(t) for t in group) for group in cls._gate)

    def check(self, ctx: FileContext) -> Iterator[Finding]:  # pragma: no cover - abstract
        raise NotImplementedError

    def fix(self, ctx: FileContext, finding: Finding) -> Fix | None:
        """Edits that remove ``finding`` (one this rule reported on ``ctx``), or None when no fix is certain.

        ``scan/fixes.py`` re-parses the edited file and re-scans it before anything is written.
        """
        return None

    @classmethod
    def fixable(cls) -> bool:
        return cls.fix is not Rule.fix

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
    for group in cls.requires:
        if not isinstance(group, tuple) or not group or not all((isinstance(t, str) and t) or isinstance(t, (re.Pattern, Word, NoCase, ModuleClassHeader, CallTo)) for t in group):
            raise catalog.CatalogError(f"rule {cls.id}: requires must be a tuple of non-empty tuples of strings or patterns")
    if cls.id in RULES and RULES[cls.id] is not cls:
        raise catalog.CatalogError(f"rule id {cls.id!r} defined twice")
    if cls.fixable() != bool(cls.fix_note):
        raise catalog.CatalogError(f"rule {cls.id}: a rule with a fix() needs a fix_note saying what --fix rewrites (and only such a rule has one)")
    cls._gate = cheapest_first((gate_terms(cls.triggers), *cls.requires))
    doc = catalog.parse_doc(cls.id, TOOL, cls.category, cls.severity, cls.__doc__, cls.reach)
    if cls.fix_note:
        import dataclasses

        doc = dataclasses.replace(doc, fix=" ".join(cls.fix_note.split()), fix_unsafe_only=cls.fix_unsafe_only)
    cls.doc = catalog.register(doc)
    RULES[cls.id] = cls
    return cls


RULES_PACKAGE = "mlsleuth.scan.rules"
_rule_modules_loaded = False


def load_rule_modules() -> None:
    """Import every module under ``scan/rules/`` (importing a rule module registers its rule).

    The package is walked with :mod:`pkgutil`, in sorted module-name order, so
    there is no hand-kept list to forget a new rule in.
    """
    global _rule_modules_loaded
    if _rule_modules_loaded:
        return
    import importlib
    import pkgutil

    package = importlib.import_module(RULES_PACKAGE)
    for info in sorted(pkgutil.walk_packages(package.__path__, RULES_PACKAGE + "."), key=lambda i: i.name):
        importlib.import_module(info.name)
    _rule_modules_loaded = True


def all_rules() -> dict[str, type[Rule]]:
    """Every registered rule class by id (importing the rule modules first)."""
    load_rule_modules()
    return dict(sorted(RULES.items()))
